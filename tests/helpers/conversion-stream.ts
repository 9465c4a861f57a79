/**
 * A stream of conversions against a running portal over HTTP (quote, then execute with an
 * Idempotency-Key), for the tests that stop, back up or restore the portal under load: the
 * graceful stop (tests/integration/shutdown.test.ts) and the backup (tests/integration/backup.test.ts).
 *
 *   const stream = startConversions(customers, { loops: 4 });
 *   await stream.answeredAtLeast(20);
 *   ... (SIGTERM, a backup) ...
 *   const { answered, unexpected } = await stream.stop();
 *
 * Every 201 is kept (the conversion the portal acknowledged); any other answer, or a network error
 * while the stream is not told that the server is going away, is kept in `unexpected`.
 */
import type { Database } from "../../db/client.ts";
import type { HttpCustomer, HttpSession } from "./http-customer.ts";

/** A conversion the portal answered 201, as it answered it. */
export interface AnsweredConversion {
  id: number;
  quote_id: string;
  transfer_id: number;
  sell_currency: string;
  sell_amount: string;
  buy_currency: string;
  buy_amount: string;
}

const PAIRS = [
  { sell_currency: "GBP", buy_currency: "EUR" },
  { sell_currency: "EUR", buy_currency: "GBP" },
  { sell_currency: "GBP", buy_currency: "USD" },
  { sell_currency: "EUR", buy_currency: "USD" },
];

export interface StreamOutcome {
  answered: AnsweredConversion[];
  /** Answers nobody expected (and network errors before serverGoing). */
  unexpected: string[];
  /** The quotes whose execution was sent and never answered (the connection went away). */
  unanswered: string[];
  /** How many answers came after serverGoing() was called. */
  answeredAfterGoing: number;
}

export interface ConversionStream {
  /** Every 201 so far, in the order they came. */
  readonly answered: AnsweredConversion[];
  /** Resolves once at least `n` conversions were answered 201. */
  answeredAtLeast(n: number): Promise<void>;
  /** From now on a refused connection or a 503 is expected (the server is stopping): loops end quietly. */
  serverGoing(): void;
  /** Ends the loops after their current request; resolves with what they saw. */
  stop(): Promise<StreamOutcome>;
}

export function startConversions(customers: HttpCustomer[], options: { loops: number }): ConversionStream {
  const answered: AnsweredConversion[] = [];
  const unexpected: string[] = [];
  const waiters: { n: number; resolve(): void }[] = [];
  let stopped = false;
  let going = false;
  let answeredAfterGoing = 0;
  const unanswered: string[] = [];

  const loop = async (i: number) => {
    const session: HttpSession = customers[i % customers.length].session;
    const pair = PAIRS[i % PAIRS.length];
    while (!stopped) {
      let executing: string | null = null;
      try {
        const quote = await session.post("account/conversions/quote", { ...pair, amount: "10.00", fixed: "sell" });
        if (going) answeredAfterGoing++;
        if (quote.status !== 200) {
          if (!going) unexpected.push(`quote ${quote.status}: ${quote.text.slice(0, 200)}`);
          return;
        }
        executing = quote.json.body.id as string;
        const executed = await session.post("account/conversions", { quote_id: executing }, {
          "Idempotency-Key": `convert-${crypto.randomUUID()}`,
        });
        executing = null;
        if (going) answeredAfterGoing++;
        if (executed.status !== 201) {
          if (!going) unexpected.push(`execute ${executed.status}: ${executed.text.slice(0, 200)}`);
          return;
        }
        answered.push(executed.json.body as AnsweredConversion);
        for (const waiter of waiters.filter((w) => answered.length >= w.n)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      } catch (error) {
        if (executing !== null) unanswered.push(executing);
        if (!going) unexpected.push(`network error: ${error}`);
        return;
      }
    }
  };
  const loops = Promise.all(Array.from({ length: options.loops }, (_, i) => loop(i)));

  return {
    answered,
    answeredAtLeast(n) {
      if (answered.length >= n) return Promise.resolve();
      const { promise, resolve } = Promise.withResolvers<void>();
      waiters.push({ n, resolve });
      // A loop that ended early (an unexpected answer) would otherwise leave the wait hanging.
      loops.then(() => {
        if (answered.length < n) resolve();
      });
      return promise;
    },
    serverGoing() {
      going = true;
    },
    async stop() {
      stopped = true;
      await loops;
      return { answered, unexpected, unanswered, answeredAfterGoing };
    },
  };
}

/**
 * Which of `answered` are missing from a database, or there without their ledger transfer (kind
 * conversion, reference quote:<id>): the ids, empty when every acknowledged conversion is there.
 */
export async function missingConversions(db: Database, answered: AnsweredConversion[]): Promise<number[]> {
  const { rows } = await db.$client.execute(
    `SELECT c.id, c.quote_id, c.transfer_id, t.kind, t.reference FROM conversions c
       JOIN ledger_transfers t ON t.id = c.transfer_id`,
  );
  const stored = new Map(rows.map((row) => [Number(row.id), row]));
  return answered.filter((a) => {
    const row = stored.get(a.id);
    return !row || Number(row.transfer_id) !== a.transfer_id || row.kind !== "conversion" ||
      row.reference !== `quote:${a.quote_id}`;
  }).map((a) => a.id);
}
