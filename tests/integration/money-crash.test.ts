/**
 * The portal killed (SIGKILL: no chance to finish anything) while customers convert, pay and
 * cancel and the payout desk sends and fails payouts, all at once. Nothing may be lost or created:
 * - after a restart on the same file the ledger check passes (every transfer balances, each
 *   customer's held money is exactly what their open payments reserve, each payment's money moved
 *   as its status says);
 * - every write the portal acknowledged is there as it was answered;
 * - every write sent again with its Idempotency-Key (what a browser or a client does when its
 *   connection dropped) gets the first answer if it had been done, or is done now, and never twice.
 * Conversions alone, with the kill aimed at the moment between a COMMIT and its answer, are
 * tests/e2e/crash.test.ts; payments made, approved and put in SEPA files, tests/e2e/payouts-crash.test.ts.
 * This one adds what gives money back: a cancel, a payout failed before sending, a payout refused by
 * its rail after it was paid out, each retried with its key after the restart.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, test, vi } from "vitest";
import { type Database, openDatabase } from "../../db/client.ts";
import { checkLedger, formatReport } from "../../server/ledger/check.ts";
import { missingConversions, startConversions } from "../helpers/conversion-stream.ts";
import {
  createAdminOverHttp,
  expectAnswer,
  fundedCustomerOverHttp,
  type HttpAnswer,
  type HttpCustomer,
  type HttpSession,
  startServerOn,
} from "../helpers/http-customer.ts";
import { type RunningServer, startServer } from "../helpers/server.ts";

vi.setConfig({ testTimeout: 240_000 });

const ENV = {
  APP_ENV: "test",
  APP_SECRET: crypto.randomUUID(),
  QUOTE_VALIDITY_SECONDS: "600",
  // Funding of 100,000 would otherwise wait for a second administrator (decision 026).
  RECEIPT_APPROVAL_GBP: "10000000",
};
const FUNDS: Record<string, string> = { GBP: "100000.00", EUR: "100000.00" };

/** One write sent with an Idempotency-Key, and its answer if one came before the kill. */
interface Write {
  what: "make" | "cancel" | "fail" | "submit" | "refuse";
  session: HttpSession;
  method: "POST";
  path: string;
  body: Record<string, unknown>;
  key: string;
  answer?: HttpAnswer;
}

let server: RunningServer | null = null;
let dataDir: string | null = null;
afterAll(async () => {
  if (server) {
    try {
      server.process.kill("SIGKILL");
    } catch { /* already gone */ }
    await server.process.status;
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test("SIGKILL while money moves: the ledger holds, every acknowledged write is there, every retry is done once", async () => {
  server = await startServer("main.ts", ENV);
  dataDir = server.dataDir;
  const databaseUrl = `file:${join(dataDir, "portal.db")}`;
  const mailbox = await openDatabase({ url: databaseUrl });
  let customers: HttpCustomer[];
  let admin: Awaited<ReturnType<typeof createAdminOverHttp>>;
  const recipients: number[] = [];
  try {
    admin = await createAdminOverHttp(server.url, mailbox);
    customers = [
      await fundedCustomerOverHttp(server.url, mailbox, admin, { funds: FUNDS, first: "Kill", last: "Payer" }),
      await fundedCustomerOverHttp(server.url, mailbox, admin, { funds: FUNDS, first: "Kill", last: "Canceller" }),
    ];
  } finally {
    mailbox.$client.close();
  }
  for (const customer of customers) {
    const made = await customer.session.post("account/recipients", {
      name: "Jane Smith",
      type: "person",
      currency: "GBP",
      country: "GB",
      details: { sort_code: "200000", account_number: "55779911" },
    });
    recipients.push(expectAnswer<{ body: { id: number } }>("account/recipients", made, 201).json.body.id);
  }

  const writes: Write[] = [];
  let killed = false;
  const unexpected: string[] = [];
  /** Sends a write and keeps it; answers null once the portal is gone (the write stays unanswered). */
  const send = async (write: Omit<Write, "method" | "key">): Promise<HttpAnswer | null> => {
    const kept: Write = { ...write, method: "POST", key: `crash-${crypto.randomUUID()}` };
    writes.push(kept);
    try {
      kept.answer = await kept.session.post(kept.path, kept.body, { "Idempotency-Key": kept.key });
      return kept.answer;
    } catch (error) {
      if (!killed) unexpected.push(`${kept.what} ${kept.path}: ${error}`);
      return null;
    }
  };
  const count = (what: Write["what"]) => writes.filter((w) => w.what === what && w.answer).length;

  // The first customer's payments go to the payout desk; the second's are cancelled at once.
  const paidOut: number[] = [];
  const paymentLoop = async (i: number) => {
    const session = customers[i].session;
    while (!killed) {
      let quote: HttpAnswer;
      try {
        quote = await session.post("account/payments/quote", {
          recipient_id: recipients[i],
          amount: "10.00",
          fixed: "send",
          sell_currency: i === 0 ? "GBP" : "EUR",
          priority: false,
        });
      } catch (error) {
        if (!killed) unexpected.push(`payment quote: ${error}`);
        return;
      }
      if (quote.status !== 200) return void unexpected.push(`payment quote ${quote.status}: ${quote.text}`);
      const made = await send({
        what: "make",
        session,
        path: "account/payments",
        body: { quote_id: quote.json.body.id, reference: "Invoice 7" },
      });
      if (!made) return;
      if (made.status !== 201) return void unexpected.push(`make ${made.status}: ${made.text}`);
      if (i === 0) {
        paidOut.push(made.json.body.id);
        continue;
      }
      const cancelled = await send({
        what: "cancel",
        session,
        path: `account/payments/${made.json.body.id}/cancel`,
        body: { reason: "Changed my mind" },
      });
      if (!cancelled) return;
      if (cancelled.status !== 200) return void unexpected.push(`cancel ${cancelled.status}: ${cancelled.text}`);
    }
  };
  // The payout desk works the first customer's payments, oldest first, three ways in turn.
  const deskLoop = async () => {
    const ways = ["fail", "refuse", "submit"] as const;
    for (let n = 0; !killed; n++) {
      const id = paidOut.shift();
      if (id === undefined) {
        await new Promise((r) => setTimeout(r, 5));
        continue;
      }
      const way = ways[n % ways.length];
      const done = await send({
        what: way,
        session: admin.session,
        path: `console/payouts/${id}/${way === "fail" ? "fail" : "submit"}`,
        body: way === "fail"
          ? { reason: "Account closed" }
          : way === "refuse"
          ? { simulate_refusal: "No such account" }
          : {},
      });
      if (!done) return;
      if (done.status !== 200) return void unexpected.push(`${way} ${done.status}: ${done.text}`);
    }
  };

  const conversions = startConversions(customers, { loops: 2 });
  const loops = Promise.all([paymentLoop(0), paymentLoop(1), deskLoop()]);
  await vi.waitFor(() => {
    expect(unexpected).toEqual([]);
    expect(conversions.answered.length).toBeGreaterThanOrEqual(20);
    expect(count("make")).toBeGreaterThanOrEqual(20);
    expect(count("cancel")).toBeGreaterThanOrEqual(6);
    expect(count("fail") + count("refuse") + count("submit")).toBeGreaterThanOrEqual(6);
  }, { timeout: 120_000, interval: 20 });

  conversions.serverGoing();
  killed = true;
  server.process.kill("SIGKILL");
  const killedAt = Date.now();
  await server.process.status;
  await loops;
  const converted = await conversions.stop();
  expect(unexpected, "answers before the kill").toEqual([]);
  expect(converted.unexpected, "conversions before the kill").toEqual([]);

  server = await startServerOn(dataDir, "main.ts", ENV, 60_000);
  for (const session of [admin.session, ...customers.map((c) => c.session)]) session.baseUrl = server.url;
  const restarted = await openDatabase({ url: databaseUrl });
  try {
    const report = await checkLedger(restarted);
    expect(report.violations, formatReport(report)).toEqual([]);
    expect(await missingConversions(restarted, converted.answered), "acknowledged conversions missing").toEqual([]);
    // Each payment is as the last answer about it said, unless a later write about it went unanswered.
    const statuses = await paymentStatuses(restarted);
    const lastAnswered = new Map<number, { what: string; status: string }>();
    for (const write of writes) {
      if (!write.answer) {
        const id = /payments\/(\d+)|payouts\/(\d+)/.exec(write.path)?.slice(1).find(Boolean);
        if (id) lastAnswered.delete(Number(id));
        continue;
      }
      const payment = write.answer.json.body.payment ?? write.answer.json.body;
      lastAnswered.set(payment.id, { what: write.what, status: payment.status });
    }
    expect(lastAnswered.size).toBeGreaterThan(10);
    for (const [id, { what, status }] of lastAnswered) {
      expect(statuses.get(id), `payment ${id} after its ${what} was answered`).toBe(status);
    }

    // Every write again, with its key: the first answer where there was one; done now where not.
    const unanswered = writes.filter((w) => !w.answer);
    for (const write of writes) {
      let again = await write.session.post(write.path, write.body, { "Idempotency-Key": write.key });
      // Submitting a payout asks its rail between two transactions, so its key is claimed before
      // (decision 025): killed in between, the claim says "in progress" until its lock lapses
      // (LOCK_MS, a minute), and then the retry takes the key over and does it, once.
      if ((write.what === "submit" || write.what === "refuse") && again.status === 409) {
        expect(again.text, `${write.what} ${write.path} retried at once`).toMatch(/still in progress/);
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, killedAt + 61_000 - Date.now())));
        again = await write.session.post(write.path, write.body, { "Idempotency-Key": write.key });
      }
      if (write.answer) {
        expect({ status: again.status, body: again.json?.body }, `${write.what} ${write.path} retried`).toEqual({
          status: write.answer.status,
          body: write.answer.json.body,
        });
      } else {
        expect(again.status, `${write.what} ${write.path} unanswered, retried: ${again.text}`).toBe(
          write.what === "make" ? 201 : 200,
        );
      }
    }
    const twice = await restarted.$client.execute(
      `SELECT key, COUNT(*) AS n FROM (SELECT quote_id AS key FROM payments) GROUP BY key HAVING n > 1`,
    );
    expect(twice.rows, "a quote paid twice").toEqual([]);
    const after = await checkLedger(restarted);
    expect(after.violations, formatReport(after)).toEqual([]);
    // Only the kill decides how many were in flight; say it, for whoever reads a failure.
    console.info(
      `money-crash: ${writes.length} writes, ${unanswered.length} unanswered at the kill, ` +
        `${converted.answered.length} conversions acknowledged, ${converted.unanswered.length} unanswered`,
    );
  } finally {
    restarted.$client.close();
  }
});

async function paymentStatuses(db: Database): Promise<Map<number, string>> {
  const { rows } = await db.$client.execute("SELECT id, status FROM payments");
  return new Map(rows.map((row) => [Number(row.id), String(row.status)]));
}
