/**
 * A crash in the middle of a stream of conversions: the real portal (main.ts) is killed with
 * SIGKILL while conversions are in flight, restarted on the same database file, and then
 * - the ledger check passes (scripts/ledger-check.ts, i.e. `deno task ledger:check`, exits 0, and
 *   checkLedger says every balance equals the sum of its entries, every transfer balances...);
 * - every conversion that was answered 201 before the kill is there: in the conversions table with
 *   its ledger transfer (kind conversion, reference quote:<id>, its entries), its quote marked
 *   used, and in GET account/conversions of the restarted server;
 * - nothing half-done survived: no conversion without its transfer, no conversion transfer without
 *   its conversion, no quote marked used without its conversion, and no conversion that nobody
 *   asked for (each row is a 201 or one of the requests in flight at the kill);
 * - the customers' balances (GET account/balances) are their funding plus what the stored
 *   conversions moved, and the restarted server converts again;
 * - every execution carried an Idempotency-Key, and its retry on the restarted server learns what
 *   happened (issue 14, finding 5): an answered one replays its 201 byte for byte; one in flight
 *   whose conversion was committed replays a 201 describing that very conversion; one in flight
 *   that left nothing is either still held by its claim (409 "in progress", for a minute) or runs
 *   now, once. No retry is ever told that its own quote was "already used".
 * Twice: crash, restart, check, then the stream again on the restarted server, crash, restart,
 * check. The first crash comes at a random moment; the second is aimed at the moment a conversion
 * has reached the disk and its answer not yet (the server is stopped with SIGSTOP again and again,
 * its database read each time, and killed when such a conversion is found; a portal that stores
 * the answer with the conversion never shows one, and then dies at a random moment of the probes).
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { type Database, openDatabase } from "../../db/client.ts";
import { checkLedger, formatReport } from "../../server/ledger/check.ts";
import {
  createAdminOverHttp,
  fundedCustomerOverHttp,
  type HttpCustomer,
  type HttpSession,
  startServerOn,
} from "../helpers/http-customer.ts";
import { type RunningServer, startServer } from "../helpers/server.ts";

/**
 * The same secret across restarts, as a real deployment has (and no data/app-secret written).
 * Quotes hold for 10 minutes: a retry after a slow restart on a busy machine must find its quote
 * still valid, so that its answer says what the crash did rather than that time passed.
 */
const ENV = {
  APP_ENV: "test",
  APP_SECRET: crypto.randomUUID(),
  QUOTE_VALIDITY_SECONDS: "600",
  // Funding of 100,000 would otherwise wait for a second administrator (decision 026).
  RECEIPT_APPROVAL_GBP: "10000000",
};
/** How often the aimed crash stops the server to look for a conversion committed without its answer. */
const PROBES = 60;
const LOOPS = 4;
/** The kill comes when this many conversions have been answered 201 in the current cycle. */
const KILL_AFTER = 40;
const CYCLES = 2;
/** Each customer's funding, minor units (2-decimal currencies). */
const FUNDS: Record<string, string> = { GBP: "100000.00", EUR: "100000.00" };
/** What each loop converts; USD has no balance until the first conversion creates it (inside the transaction). */
const PAIRS = [
  { sell_currency: "GBP", buy_currency: "EUR" },
  { sell_currency: "EUR", buy_currency: "GBP" },
  { sell_currency: "GBP", buy_currency: "USD" },
  { sell_currency: "EUR", buy_currency: "USD" },
];

let server: RunningServer | null = null;
let dataDir: string | null = null;
let reader: Database | null = null;

afterAll(async () => {
  reader?.$client.close();
  if (server) {
    try {
      server.process.kill("SIGKILL");
    } catch { /* already gone */ }
    await server.process.status;
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Each execution sent: its quote, its Idempotency-Key, and the answer's text once it came. */
interface Execution {
  quoteId: string;
  key: string;
  answer?: string;
}

interface Answered {
  id: number;
  quote_id: string;
  transfer_id: number;
  sell_currency: string;
  sell_amount: string;
  buy_currency: string;
  buy_amount: string;
}

const minor = (amount: string) => Number(amount.replace(".", ""));
const databaseUrl = () => `file:${join(dataDir!, "portal.db")}`;

type Aim = "random" | "between commit and answer";

/**
 * LOOPS loops of quote + execute (2 customers, 2 loops each) until KILL_AFTER 201s, then SIGKILL
 * with the loops' requests in flight: 0 to 10 ms later ("random"), or once a conversion is found
 * committed without its answer (see killBetweenCommitAndAnswer). Answers the 201s, the executions
 * (each with its session), and how many requests were in flight when the signal went.
 */
async function streamAndKill(customers: HttpCustomer[], aim: Aim) {
  const answered: Answered[] = [];
  const executions: Array<Execution & { session: HttpSession }> = [];
  let inFlight = 0;
  let inFlightAtKill = -1;
  let killing = false;
  let killed = false;
  const unexpected: string[] = [];
  const child = server!.process;
  const kill = () => {
    killed = true;
    inFlightAtKill = inFlight;
    child.kill("SIGKILL");
  };

  const loop = async (i: number) => {
    const session: HttpSession = customers[i % customers.length].session;
    const pair = PAIRS[i % PAIRS.length];
    while (!killed) {
      inFlight++;
      try {
        const quote = await session.post("account/conversions/quote", { ...pair, amount: "10.00", fixed: "sell" });
        if (quote.status !== 200) {
          if (!killed) unexpected.push(`quote ${quote.status}: ${quote.text.slice(0, 200)}`);
          return;
        }
        const execution = { quoteId: quote.json.body.id as string, key: `convert-${crypto.randomUUID()}`, session };
        executions.push(execution);
        const executed = await session.post("account/conversions", { quote_id: execution.quoteId }, {
          "Idempotency-Key": execution.key,
        });
        if (executed.status !== 201) {
          if (!killed) unexpected.push(`execute ${executed.status}: ${executed.text.slice(0, 200)}`);
          return;
        }
        (execution as Execution).answer = executed.text;
        answered.push(executed.json.body as Answered);
        if (answered.length >= KILL_AFTER && !killing) {
          killing = true;
          if (aim === "random") {
            // A random moment in the next few milliseconds, while the stream goes on: sometimes in
            // the middle of a transaction, sometimes between a commit and its answer.
            setTimeout(kill, Math.random() * 10);
          } else {
            killBetweenCommitAndAnswer(child, executions).then(kill, (error) => {
              unexpected.push(`probing the database: ${error}`);
              kill();
            });
          }
        }
      } catch (error) {
        // A network error: only after the kill (the answer never came).
        if (!killed) unexpected.push(`network error before the kill: ${error}`);
        return;
      } finally {
        inFlight--;
      }
    }
  };
  await Promise.all(Array.from({ length: LOOPS }, (_, i) => loop(i)));
  const status = await child.status;
  expect(unexpected, "answers before the kill").toEqual([]);
  expect(status.signal, "the server died of SIGKILL").toBe("SIGKILL");
  const unanswered = new Set(executions.filter((e) => e.answer === undefined).map((e) => e.quoteId));
  return { answered, executions, unanswered, inFlightAtKill };
}

/** Whether the process's main thread is stopped (state T in /proc/PID/stat). */
function isStopped(pid: number): boolean {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  return stat.slice(stat.lastIndexOf(")") + 2).startsWith("T");
}

/**
 * Stops the server (SIGSTOP) a few milliseconds at a time and reads its database while it is
 * stopped: when an execution's conversion is committed while its Idempotency-Key still waits for
 * its answer, the moment has come, and the caller kills the server there, still stopped. A portal
 * that commits the answer with the conversion never shows one; after PROBES looks, the caller
 * kills it at the last of them. Leaves the server stopped either way (SIGKILL ends it all the same).
 */
async function killBetweenCommitAndAnswer(child: Deno.ChildProcess, executions: Execution[]): Promise<void> {
  for (let probe = 1;; probe++) {
    await new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * 4));
    child.kill("SIGSTOP");
    while (!isStopped(child.pid)) await new Promise((resolve) => setTimeout(resolve, 0));
    const waiting = executions.filter((e) => e.answer === undefined);
    const db = await openDatabase({ url: databaseUrl() });
    try {
      const inList = "(SELECT value FROM json_each(?))";
      const { rows: converted } = await db.$client.execute({
        sql: `SELECT quote_id FROM conversions WHERE quote_id IN ${inList}`,
        args: [JSON.stringify(waiting.map((e) => e.quoteId))],
      });
      const { rows: running } = await db.$client.execute({
        sql: `SELECT key FROM idempotency_keys WHERE state = 'running' AND key IN ${inList}`,
        args: [JSON.stringify(waiting.map((e) => e.key))],
      });
      const committed = new Set(converted.map((row) => String(row.quote_id)));
      const unstored = new Set(running.map((row) => String(row.key)));
      if (waiting.some((e) => committed.has(e.quoteId) && unstored.has(e.key))) return;
    } finally {
      db.$client.close();
    }
    if (probe >= PROBES) return;
    child.kill("SIGCONT");
  }
}

/** Every check on the restarted server and its database. */
async function verifyAfterRestart(
  customers: HttpCustomer[],
  answered: Answered[],
  unanswered: Set<string>,
) {
  const db = reader!;
  // The ledger's invariants (balances = sum of entries, transfers balanced, nothing negative...).
  const report = await checkLedger(db);
  expect(report.violations, formatReport(report)).toEqual([]);
  expect(report.ok).toBe(true);

  // Every 201 is stored, with its transfer, entries and used quote, as answered.
  const rows = (await db.$client.execute(
    `SELECT c.id, c.quote_id, c.transfer_id, c.sell_currency, c.sell_minor, c.buy_currency, c.buy_minor, c.fee_minor,
            t.kind, t.reference, (SELECT COUNT(*) FROM ledger_entries e WHERE e.transfer_id = t.id) AS entries,
            q.used_at
     FROM conversions c LEFT JOIN ledger_transfers t ON t.id = c.transfer_id LEFT JOIN quotes q ON q.id = c.quote_id`,
  )).rows as unknown as {
    id: number;
    quote_id: string;
    transfer_id: number;
    sell_currency: string;
    sell_minor: number;
    buy_currency: string;
    buy_minor: number;
    fee_minor: number;
    kind: string | null;
    reference: string | null;
    entries: number;
    used_at: number | null;
  }[];
  const byQuote = new Map(rows.map((r) => [r.quote_id, r]));
  for (const a of answered) {
    const row = byQuote.get(a.quote_id);
    expect(row, `conversion ${a.id} (quote ${a.quote_id}) was answered 201 and must be stored`).toBeDefined();
    expect(row!.id).toBe(a.id);
    expect(row!.transfer_id).toBe(a.transfer_id);
    expect([row!.sell_currency, row!.sell_minor, row!.buy_currency, row!.buy_minor])
      .toEqual([a.sell_currency, minor(a.sell_amount), a.buy_currency, minor(a.buy_amount)]);
  }
  // Nothing half-done: each stored conversion has its transfer (kind, reference, 4 or 5 entries) and used quote.
  for (const r of rows) {
    expect(r.kind, `conversion ${r.id} without its ledger transfer`).toBe("conversion");
    expect(r.reference).toBe(`quote:${r.quote_id}`);
    expect(r.entries).toBe(r.fee_minor > 0 ? 5 : 4);
    expect(r.used_at, `conversion ${r.id}: its quote is not marked used`).not.toBeNull();
  }
  const [orphans] = (await db.$client.execute(
    `SELECT (SELECT COUNT(*) FROM ledger_transfers t WHERE t.kind = 'conversion'
               AND NOT EXISTS (SELECT 1 FROM conversions c WHERE c.transfer_id = t.id)) AS transfers,
            (SELECT COUNT(*) FROM quotes q WHERE q.used_at IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM conversions c WHERE c.quote_id = q.id)) AS quotes`,
  )).rows as unknown as { transfers: number; quotes: number }[];
  expect(orphans.transfers, "conversion transfers without their conversion").toBe(0);
  expect(orphans.quotes, "quotes marked used without their conversion").toBe(0);
  // No phantom: each stored conversion was answered 201, or was in flight at a kill.
  const known = new Set([...answered.map((a) => a.quote_id), ...unanswered]);
  expect(rows.filter((r) => !known.has(r.quote_id)).map((r) => r.id), "conversions nobody asked for").toEqual([]);

  // Over HTTP, on the restarted server, with the sessions from before the crash.
  for (const customer of customers) {
    const listed: number[] = [];
    for (let page = 1;; page++) {
      const res = await customer.session.get(`account/conversions?page=${page}&per_page=100`);
      expect(res.status, res.text).toBe(200);
      listed.push(...(res.json.body.items as { id: number }[]).map((item) => item.id));
      if (listed.length >= res.json.body.total) break;
    }
    const accountRows = (await db.$client.execute({
      sql: `SELECT c.* FROM conversions c JOIN accounts a ON a.id = c.account_id WHERE a.account_ref = ?`,
      args: [customer.accountRef],
    })).rows as unknown as {
      id: number;
      sell_currency: string;
      sell_minor: number;
      buy_currency: string;
      buy_minor: number;
    }[];
    expect(listed.sort((a, b) => a - b)).toEqual(accountRows.map((r) => r.id).sort((a, b) => a - b));

    // Balances: funding plus what the stored conversions moved.
    const expected = new Map(Object.entries(FUNDS).map(([currency, amount]) => [currency, minor(amount)]));
    for (const r of accountRows) {
      expected.set(r.sell_currency, (expected.get(r.sell_currency) ?? 0) - r.sell_minor);
      expected.set(r.buy_currency, (expected.get(r.buy_currency) ?? 0) + r.buy_minor);
    }
    const balances = await customer.session.get("account/balances");
    expect(balances.status, balances.text).toBe(200);
    const actual = new Map(
      (balances.json.body as { currency: string; available: string }[]).map((b) => [b.currency, minor(b.available)]),
    );
    expect(Object.fromEntries(actual)).toEqual(Object.fromEntries(expected));
  }
}

/**
 * Every execution of the cycle retried with its Idempotency-Key on the restarted server, twice
 * (docs/decisions/025): what each retry must say is set out at the top of this file. Answers the
 * conversions the retries made (in flight at the kill, they had left nothing behind).
 */
async function retryEveryExecution(executions: Array<Execution & { session: HttpSession }>): Promise<Answered[]> {
  const made: Answered[] = [];
  const stored = new Map(
    ((await reader!.$client.execute("SELECT id, quote_id, transfer_id FROM conversions")).rows as unknown as {
      id: number;
      quote_id: string;
      transfer_id: number;
    }[]).map((row) => [row.quote_id, row]),
  );
  let committedUnanswered = 0;
  for (const execution of executions) {
    const retry = () =>
      execution.session.post("account/conversions", { quote_id: execution.quoteId }, {
        "Idempotency-Key": execution.key,
      });
    const first = await retry();
    const what = `the retry of ${execution.key} (quote ${execution.quoteId})`;
    const conversion = stored.get(execution.quoteId);
    if (execution.answer !== undefined) {
      expect(first.status, `${what}, answered before the kill: ${first.text}`).toBe(201);
      expect(first.text, what).toBe(execution.answer);
      expect(first.headers.get("idempotent-replayed"), what).toBe("true");
    } else if (conversion) {
      committedUnanswered++;
      expect(first.status, `${what}, committed but unanswered at the kill: ${first.text}`).toBe(201);
      expect(first.json.body, what).toMatchObject({
        id: conversion.id,
        quote_id: execution.quoteId,
        transfer_id: conversion.transfer_id,
      });
    } else if (first.status === 201) {
      // Nothing of it had reached the disk: it runs now, once.
      expect(first.json.body.quote_id, what).toBe(execution.quoteId);
      made.push(first.json.body as Answered);
    } else {
      // Its claim reached the disk, its conversion did not: the claim holds the key for a minute.
      expect([first.status, first.json?.error], `${what}, which left nothing: ${first.text}`)
        .toEqual([409, "A request with this Idempotency-Key is still in progress."]);
    }
    if (first.status === 201) {
      const again = await retry();
      expect([again.status, again.text], `${what}, retried again`).toEqual([201, first.text]);
    }
  }
  console.log(
    `[crash] ${executions.length} executions retried: ${
      executions.filter((e) => e.answer !== undefined).length
    } answered before the kill, ${committedUnanswered} committed without an answer, ${made.length} run by their retry`,
  );
  return made;
}

/** `deno task ledger:check` on the database file: exit code 0 and "OK". */
async function ledgerCheckTask(): Promise<void> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/ledger-check.ts", databaseUrl()],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  expect(code, out).toBe(0);
  expect(out).toContain("OK: every invariant holds.");
}

test(
  "conversions survive a SIGKILL in the middle of a stream: the ledger checks out and every 201 is there",
  async () => {
    server = await startServer("main.ts", ENV);
    dataDir = server.dataDir;
    // The mailbox is read from the file only during the set-up: nothing of the test holds the
    // database while the server dies, so the restarted server recovers the WAL itself.
    const mailbox = await openDatabase({ url: databaseUrl() });
    let customers: HttpCustomer[];
    try {
      const admin = await createAdminOverHttp(server.url, mailbox);
      customers = [
        await fundedCustomerOverHttp(server.url, mailbox, admin, { funds: FUNDS, first: "Crash", last: "One" }),
        await fundedCustomerOverHttp(server.url, mailbox, admin, { funds: FUNDS, first: "Crash", last: "Two" }),
      ];
    } finally {
      mailbox.$client.close();
    }

    const answered: Answered[] = [];
    const unanswered = new Set<string>();
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      const result = await streamAndKill(customers, cycle === 1 ? "random" : "between commit and answer");
      expect(result.answered.length).toBeGreaterThanOrEqual(KILL_AFTER);
      expect(result.inFlightAtKill, "requests in flight when the server was killed").toBeGreaterThan(0);
      answered.push(...result.answered);
      for (const quoteId of result.unanswered) unanswered.add(quoteId);

      // Restart on the same file; the sessions are in the database, so the customers stay signed in.
      server = await startServerOn(dataDir, "main.ts", ENV);
      for (const customer of customers) customer.session.baseUrl = server.url;
      reader = await openDatabase({ url: databaseUrl() });
      await verifyAfterRestart(customers, answered, unanswered);
      answered.push(...await retryEveryExecution(result.executions));

      // The restarted server converts again, and the task's ledger check passes after it.
      const quote = await customers[0].session.post("account/conversions/quote", {
        ...PAIRS[0],
        amount: "10.00",
        fixed: "sell",
      });
      expect(quote.status, quote.text).toBe(200);
      const executed = await customers[0].session.post("account/conversions", { quote_id: quote.json.body.id });
      expect(executed.status, executed.text).toBe(201);
      answered.push(executed.json.body as Answered);
      await ledgerCheckTask();
      // Again, nothing of the test holds the file when the next crash comes.
      reader.$client.close();
      reader = null;
    }
  },
  180_000,
);
