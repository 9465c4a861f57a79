/**
 * Property test of the ledger: random sequences of receipts, allocations, conversions, fee refunds
 * (corrections) and replays, with failures injected at random points, against a model of every
 * balance. After each step: checkLedger finds nothing, every stored balance equals the model's,
 * and a step that failed changed nothing at all (every ledger row identical).
 *
 * Failures are injected two ways:
 * - "entry": a test trigger aborts the k-th ledger entry insert, i.e. inside postTransfer after the
 *   transfer row, k balance updates and k−1 entries were written;
 * - "after": the movement runs inside the caller's transaction, which throws after it succeeded.
 */
import fc from "fast-check";
import { asc, sql } from "drizzle-orm";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { type Database, openMigratedDatabase } from "../../db/client.ts";
import { accounts, users } from "../../db/schema.ts";
import { ledgerAccounts, ledgerEntries, ledgerTransfers } from "../../db/schema-money.ts";
import { checkLedger } from "../../server/ledger/check.ts";
import {
  customerAccount,
  type Executor,
  houseAccount,
  InsufficientFunds,
  inTransaction,
  type PostedTransfer,
} from "../../server/ledger/ledger.ts";
import { allocateReceipt, balancesOf, convert, correction, creditReceipt } from "../../server/ledger/movements.ts";

const CURRENCIES = ["GBP", "EUR", "JPY", "KWD"] as const;
type Currency = (typeof CURRENCIES)[number];
const CUSTOMERS = 3;
const MAX_BUY = 1_000_000_000_000;

type Fault = { kind: "none" } | { kind: "entry"; at: number } | { kind: "after" };
type Step =
  /** customer CUSTOMERS = matches no account_ref. */
  | { type: "receipt"; customer: number; currency: Currency; amount: number }
  /** share of what is unallocated, in thousandths; above 1000 asks for too much. */
  | { type: "allocate"; customer: number; currency: Currency; held: boolean; share: number }
  | {
    type: "convert";
    customer: number;
    sell: Currency;
    /** Sell a currency held (when anything is held), by this customer or else the next one who holds one. */
    held: boolean;
    buyOffset: number;
    share: number;
    feePermille: number;
    rateMicros: number;
  }
  /** An administrator refunds part of the fee income to a customer (a correction). */
  | { type: "refund"; customer: number; currency: Currency; held: boolean; share: number }
  /** Sends an earlier successful movement again, same reference: books nothing. */
  | { type: "replay"; pick: number };

const currency = fc.constantFrom(...CURRENCIES);
const customer = fc.integer({ min: 0, max: CUSTOMERS - 1 });
/** Mostly a part of what is there; sometimes more than there is. */
const share = fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 1_000 }) }, {
  weight: 1,
  arbitrary: fc.integer({ min: 1_001, max: 1_500 }),
});
const held = fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) });
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      type: fc.constant("receipt" as const),
      customer: fc.oneof({ weight: 3, arbitrary: customer }, { weight: 1, arbitrary: fc.constant(CUSTOMERS) }),
      currency,
      amount: fc.oneof(fc.integer({ min: 1, max: 1_000 }), fc.integer({ min: 1, max: 100_000_000_000 })),
    }),
  },
  { weight: 2, arbitrary: fc.record({ type: fc.constant("allocate" as const), customer, currency, held, share }) },
  {
    weight: 5,
    arbitrary: fc.record({
      type: fc.constant("convert" as const),
      customer,
      sell: currency,
      held,
      buyOffset: fc.integer({ min: 1, max: CURRENCIES.length - 1 }),
      share,
      feePermille: fc.integer({ min: 0, max: 50 }),
      rateMicros: fc.integer({ min: 1_000, max: 200_000_000 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant("refund" as const), customer, currency, held, share }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant("replay" as const), pick: fc.nat() }) },
);
const fault: fc.Arbitrary<Fault> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: "none" as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("entry" as const), at: fc.integer({ min: 1, max: 5 }) }) },
  { weight: 2, arbitrary: fc.constant({ kind: "after" as const }) },
);

/** What a step is expected to do, and the movement itself. */
interface Plan {
  run: (executor: Executor) => Promise<PostedTransfer>;
  outcome: "posted" | "insufficient" | "replayed";
  /** Balance changes by model key when posted. */
  effects: [string, number][];
  entries: number;
}

const customerKey = (accountId: number, currency: string) => `customer:${accountId}:${currency}`;
const houseKey = (purpose: string, currency: string) => `house:${purpose}:${currency}`;
const portion = (available: number, thousandths: number) => Math.max(1, Math.floor((available * thousandths) / 1000));

class InjectedFailure extends Error {}

async function freshDatabase(): Promise<{ db: Database; close: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), "ledger-property-"));
  const db = await openMigratedDatabase({ url: `file:${join(dir, "portal.db")}` });
  // The fault switch: when `remaining` is k > 0, the k-th ledger entry written from now aborts.
  await db.run(sql`CREATE TABLE test_fault (remaining INTEGER NOT NULL)`);
  await db.run(sql`INSERT INTO test_fault VALUES (0)`);
  await db.run(sql.raw(`CREATE TRIGGER test_fault_entry BEFORE INSERT ON ledger_entries
    WHEN (SELECT remaining FROM test_fault) > 0
    BEGIN
      UPDATE test_fault SET remaining = remaining - 1;
      SELECT RAISE(ABORT, 'injected fault') WHERE (SELECT remaining FROM test_fault) = 0;
    END`));
  return {
    db,
    close: () => {
      db.$client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function snapshot(db: Database) {
  return {
    accounts: await db.select().from(ledgerAccounts).orderBy(asc(ledgerAccounts.id)),
    transfers: await db.select().from(ledgerTransfers).orderBy(asc(ledgerTransfers.id)),
    entries: await db.select().from(ledgerEntries).orderBy(asc(ledgerEntries.id)),
  };
}

function message(error: unknown): string {
  const e = error as { message?: string; cause?: { message?: string } };
  return `${e?.message ?? error} ${e?.cause?.message ?? ""}`;
}

let runs = 0;
let stepsRun = 0;
const tally = { posted: 0, insufficient: 0, replayed: 0, injected: 0 };

async function runSequence(steps: { step: Step; fault: Fault }[]): Promise<void> {
  const run = ++runs;
  const { db, close } = await freshDatabase();
  try {
    const customers: number[] = [];
    for (let i = 0; i < CUSTOMERS; i++) {
      const [row] = await db.insert(accounts).values({
        accountRef: `P${i}`,
        type: "Personal",
        name: `P${i}`,
        openedAt: new Date(),
      })
        .returning({ id: accounts.id });
      customers.push(row.id);
    }
    const [admin] = await db.insert(users).values({ username: "admin@example.com", level: "Admin" }).returning({
      id: users.id,
    });
    const model = new Map<string, number>();
    const get = (key: string) => model.get(key) ?? 0;
    let transfers = 0;
    let entries = 0;
    const posted: Plan[] = [];

    /** `wanted`, or with `held` the first currency (from `wanted` on) whose balance under `key` is positive. */
    const choose = (wanted: Currency, useHeld: boolean, key: (c: Currency) => string): Currency => {
      if (!useHeld) return wanted;
      const start = CURRENCIES.indexOf(wanted);
      for (let k = 0; k < CURRENCIES.length; k++) {
        const c = CURRENCIES[(start + k) % CURRENCIES.length];
        if (get(key(c)) > 0) return c;
      }
      return wanted;
    };

    const plan = (s: Step, reference: string): Plan | null => {
      switch (s.type) {
        case "receipt": {
          const accountId = s.customer < CUSTOMERS ? customers[s.customer] : null;
          const target = accountId === null
            ? houseKey("unallocated_funds", s.currency)
            : customerKey(accountId, s.currency);
          return {
            run: (x) => creditReceipt(x, { accountId, currency: s.currency, amount: s.amount, reference }),
            outcome: "posted",
            effects: [[houseKey("incoming_funds", s.currency), -s.amount], [target, s.amount]],
            entries: 2,
          };
        }
        case "allocate": {
          const currency = choose(s.currency, s.held, (c) => houseKey("unallocated_funds", c));
          const available = get(houseKey("unallocated_funds", currency));
          const amount = portion(available, s.share);
          const toAccountId = customers[s.customer];
          return {
            run: (x) => allocateReceipt(x, { currency, amount, toAccountId, reference }),
            outcome: amount <= available ? "posted" : "insufficient",
            effects: [[houseKey("unallocated_funds", currency), -amount], [customerKey(toAccountId, currency), amount]],
            entries: 2,
          };
        }
        case "convert": {
          const holder = s.held
            ? Array.from({ length: CUSTOMERS }, (_, k) => (s.customer + k) % CUSTOMERS).find((n) =>
              CURRENCIES.some((c) => get(customerKey(customers[n], c)) > 0)
            )
            : undefined;
          const accountId = customers[holder ?? s.customer];
          const sell = choose(s.sell, s.held, (c) => customerKey(accountId, c));
          const buyCurrency = CURRENCIES[(CURRENCIES.indexOf(sell) + s.buyOffset) % CURRENCIES.length];
          const available = get(customerKey(accountId, sell));
          const sellAmount = portion(available, s.share);
          const feeAmount = Math.floor((sellAmount * s.feePermille) / 1000);
          // Capped, or conversions compounding at up to 200:1 would leave the safe integers.
          const buyAmount = Math.min(
            MAX_BUY,
            Math.max(1, Math.floor((sellAmount - feeAmount) * s.rateMicros / 1_000_000)),
          );
          return {
            run: (x) =>
              convert(x, { accountId, sellCurrency: sell, sellAmount, buyCurrency, buyAmount, feeAmount, reference }),
            outcome: sellAmount <= available ? "posted" : "insufficient",
            effects: [
              [customerKey(accountId, sell), -sellAmount],
              [houseKey("fee_income", sell), feeAmount],
              [houseKey("fx_position", sell), sellAmount - feeAmount],
              [houseKey("fx_position", buyCurrency), -buyAmount],
              [customerKey(accountId, buyCurrency), buyAmount],
            ],
            entries: feeAmount > 0 ? 5 : 4,
          };
        }
        case "refund": {
          const accountId = customers[s.customer];
          const currency = choose(s.currency, s.held, (c) => houseKey("fee_income", c));
          const available = get(houseKey("fee_income", currency));
          const amount = portion(available, s.share);
          return {
            // One transaction: the accounts are looked up (or created) and the correction posted.
            run: (x) =>
              inTransaction(x, async (tx) => {
                const fees = await houseAccount(tx, "fee_income", currency);
                const to = await customerAccount(tx, accountId, currency);
                return correction(tx, {
                  description: "Fee refunded",
                  createdBy: admin.id,
                  reference,
                  entries: [{ ledgerAccountId: fees.id, amount: -amount }, { ledgerAccountId: to.id, amount }],
                });
              }),
            outcome: amount <= available ? "posted" : "insufficient",
            effects: [[houseKey("fee_income", currency), -amount], [customerKey(accountId, currency), amount]],
            entries: 2,
          };
        }
        case "replay": {
          if (!posted.length) return null;
          const first = posted[s.pick % posted.length];
          return { run: first.run, outcome: "replayed", effects: [], entries: 0 };
        }
      }
    };

    for (const [i, { step: s, fault: f }] of steps.entries()) {
      const p = plan(s, `run${run}-step${i}`);
      if (!p) continue;
      stepsRun++;
      const before = await snapshot(db);
      const faultHits = f.kind === "entry" && p.outcome === "posted" && f.at <= p.entries;
      if (f.kind === "entry") await db.run(sql`UPDATE test_fault SET remaining = ${f.at}`);

      let result: PostedTransfer | undefined;
      let error: unknown;
      try {
        result = f.kind === "after"
          ? await db.transaction(async (tx) => {
            await p.run(tx);
            throw new InjectedFailure("injected after the movement");
          })
          : await p.run(db);
      } catch (e) {
        error = e;
      } finally {
        if (f.kind === "entry") await db.run(sql`UPDATE test_fault SET remaining = 0`);
      }

      const context = `step ${i} ${JSON.stringify(s)} fault ${JSON.stringify(f)}`;
      if (p.outcome === "insufficient") {
        expect(error, context).toBeInstanceOf(InsufficientFunds);
      } else if (f.kind === "after") {
        expect(error, context).toBeInstanceOf(InjectedFailure);
      } else if (faultHits) {
        expect(message(error), context).toContain("injected fault");
      } else {
        expect(error, context).toBeUndefined();
        expect(result!.replayed, context).toBe(p.outcome === "replayed");
      }

      if (error === undefined && p.outcome === "posted") {
        for (const [key, delta] of p.effects) if (delta !== 0) model.set(key, get(key) + delta);
        transfers += 1;
        entries += p.entries;
        posted.push(p);
        tally.posted++;
      } else {
        // Failed, refused or replayed: nothing at all changed.
        expect(await snapshot(db), context).toEqual(before);
        if (p.outcome === "replayed") tally.replayed++;
        else if (p.outcome === "insufficient") tally.insufficient++;
        else tally.injected++;
      }

      const report = await checkLedger(db);
      expect(report.violations, context).toEqual([]);
      expect(report.transfers, context).toBe(transfers);
      expect(report.entries, context).toBe(entries);
      for (const c of report.currencies) expect(c.total, context).toBe(0);

      const stored = Object.fromEntries(
        (await db.select().from(ledgerAccounts)).filter((a) => a.balance !== 0).map((a) => [
          a.kind === "customer" ? customerKey(a.accountId!, a.currency) : houseKey(a.purpose, a.currency),
          a.balance,
        ]),
      );
      expect(stored, context).toEqual(Object.fromEntries([...model].filter(([, v]) => v !== 0)));
      for (const [key, balance] of Object.entries(stored)) {
        if (!key.startsWith("house:fx_position") && !key.startsWith("house:incoming_funds")) {
          expect(balance, key).toBeGreaterThan(0);
        }
      }
      for (const accountId of customers) {
        for (const b of await balancesOf(db, accountId)) {
          expect(b.available).toBe(get(customerKey(accountId, b.currency)));
          expect(b.available).toBeGreaterThanOrEqual(0);
        }
      }
    }
  } finally {
    close();
  }
}

test(
  "random receipts, allocations, conversions and corrections with injected failures keep every invariant",
  async () => {
    const started = performance.now();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ step, fault }), { minLength: 5, maxLength: 40, size: "max" }), runSequence),
      // Shrinking replays whole sequences on fresh databases: give it a bound, and still fail.
      { numRuns: 40, interruptAfterTimeLimit: 100_000, markInterruptAsFailure: true },
    );
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.info(`ledger property: ${runs} runs, ${stepsRun} steps in ${seconds} s; ${JSON.stringify(tally)}`);
    // The generators must exercise every path, not only the happy one.
    expect(tally.posted).toBeGreaterThan(100);
    expect(tally.insufficient).toBeGreaterThan(10);
    expect(tally.injected).toBeGreaterThan(30);
    expect(tally.replayed).toBeGreaterThan(5);
  },
  120_000,
);
