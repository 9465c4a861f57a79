/**
 * A crash of the payout desk's work (issue 8): the real portal (main.ts) is killed with SIGKILL
 * while a payer makes payments, an approver approves them and an administrator puts the approved
 * ones in SEPA files, all at once; it is restarted on the same database file, and then
 * - the ledger check passes (checkLedger and `deno task ledger:check`: every balance is the sum of
 *   its entries, every held balance is what the open payments reserve, every payment's money moved
 *   as its status says);
 * - every payment answered 201 before the kill is there, as answered, and every approval answered
 *   200 left the payment approved or past it;
 * - no payment is in two SEPA files: every file's payments (its EndToEndIds) are exactly the
 *   payments marked with it, each file's count and total say so, each of those payments is sent,
 *   and no half-made file survived; every file answered 201 is there with its payments;
 * - the restarted server makes payments, approves them and makes a file of them again.
 * Three times: the first kill comes at a random moment of the stream, the second while a file is
 * being made (a few milliseconds after its request went out), the third once a file has reached the
 * disk and its answer not yet (the server stopped with SIGSTOP again and again and its database
 * read, as tests/e2e/crash.test.ts does; a portal that stores the answer with the file never shows
 * one); the file requests in flight are then retried with their Idempotency-Keys.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { type Database, openDatabase } from "../../db/client.ts";
import { checkLedger, formatReport } from "../../server/ledger/check.ts";
import {
  createAdminOverHttp,
  expectAnswer,
  fundedCustomerOverHttp,
  type HttpAdmin,
  type HttpCustomer,
  type HttpSession,
  startServerOn,
} from "../helpers/http-customer.ts";
import { type RunningServer, startServer } from "../helpers/server.ts";

/** The same secret across restarts, as a real deployment has; the company's account for the files. */
const ENV = {
  APP_ENV: "test",
  APP_SECRET: crypto.randomUUID(),
  QUOTE_VALIDITY_SECONDS: "600",
  COMPANY_BANK_NAME: "Commerzbank",
  COMPANY_BANK_ACCOUNT_NAME: "Portal Payments GmbH Kundengeld",
  COMPANY_BANK_IBAN: "DE89370400440532013000",
  COMPANY_BANK_BIC: "COBADEFFXXX",
  // 100,000 EUR of funding would otherwise wait for a second administrator (decision 026).
  RECEIPT_APPROVAL_GBP: "10000000",
};
/** Payers' loops making payments at once. */
const PAYERS = 2;
/** The kill comes once this many payments have been answered 201 in the cycle. */
const KILL_AFTER = 30;

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

interface Made {
  id: number;
  sell_amount: string;
  buy_amount: string;
  status: string;
}

interface Batch {
  id: number;
  payment_count: number;
  payments: { id: number }[];
}

const databaseUrl = () => `file:${join(dataDir!, "portal.db")}`;
const minor = (amount: string) => Number(amount.replace(".", ""));

/**
 * When the kill comes: at a random moment; a few milliseconds after a file's request went out; or
 * once a file is found committed while its request's Idempotency-Key still waits for its answer
 * (see killBetweenCommitAndAnswer).
 */
type Aim = "random" | "file" | "between commit and answer";
const AIMS: Aim[] = ["random", "file", "between commit and answer"];
/** How often the aimed crash stops the server to look for a file committed without its answer. */
const PROBES = 60;

interface People {
  payer: HttpCustomer;
  approver: HttpSession;
  admin: HttpAdmin;
  recipientId: number;
}

/**
 * The payer's loops (quote, pay), the approver's loop (the pending list, approve each) and the
 * desk's loop (a SEPA file of what is approved) run until the kill: after KILL_AFTER payments at a
 * random moment of the next 10 ms, or (`aim` "file") a few milliseconds after the next file's
 * request went out. Answers what was answered before the kill.
 */
async function streamAndKill(people: People, aim: Aim, earlier: readonly Batch[]) {
  const made: Made[] = [];
  const approved: number[] = [];
  const batches: Batch[] = [];
  /** Each file request's Idempotency-Key, and whether it was answered before the kill. */
  const fileRequests: { key: string; answered: boolean }[] = [];
  const unexpected: string[] = [];
  let killed = false;
  let killing = false;
  let inFlight = 0;
  let inFlightAtKill = -1;
  let filesInFlight = 0;
  let fileInFlightAtKill = false;
  const child = server!.process;
  const kill = () => {
    if (killed) return;
    killed = true;
    inFlightAtKill = inFlight;
    fileInFlightAtKill = filesInFlight > 0;
    child.kill("SIGKILL");
  };
  /** A pause between rounds of a loop that found nothing to do, so it does not spin. */
  const breath = () => new Promise((resolve) => setTimeout(resolve, 15));
  const request = async <T>(send: () => Promise<T>): Promise<T | null> => {
    inFlight++;
    try {
      return await send();
    } catch (error) {
      if (!killed) unexpected.push(String(error));
      return null;
    } finally {
      inFlight--;
    }
  };

  const pay = async () => {
    while (!killed) {
      const quote = await request(() =>
        people.payer.session.post("account/payments/quote", {
          recipient_id: people.recipientId,
          amount: "10.00",
          fixed: "send",
          sell_currency: "EUR",
        })
      );
      if (!quote || killed) return;
      if (quote.status !== 200) return void unexpected.push(`quote ${quote.status}: ${quote.text.slice(0, 200)}`);
      const paid = await request(() =>
        people.payer.session.post("account/payments", { quote_id: quote.json.body.id, reference: "Crash test" }, {
          "Idempotency-Key": `pay-${crypto.randomUUID()}`,
        })
      );
      if (!paid || killed) return;
      if (paid.status !== 201) return void unexpected.push(`pay ${paid.status}: ${paid.text.slice(0, 200)}`);
      made.push(paid.json.body as Made);
      if (made.length >= KILL_AFTER && !killing) {
        killing = true;
        if (aim === "random") setTimeout(kill, Math.random() * 10);
        if (aim === "between commit and answer") {
          killBetweenCommitAndAnswer(child, fileRequests, () => [...earlier, ...batches]).then(kill, (error) => {
            unexpected.push(`probing the database: ${error}`);
            kill();
          });
        }
      }
    }
  };

  const approve = async () => {
    while (!killed) {
      const pending = await request(() => people.approver.get("account/pendingpayments/all"));
      if (!pending || killed) return;
      if (pending.status !== 200) return void unexpected.push(`pending ${pending.status}: ${pending.text}`);
      if (!(pending.json.body as unknown[]).length) await breath();
      for (const { id } of pending.json.body as { id: number }[]) {
        const answer = await request(() => people.approver.put(`account/pendingpayments/update?id=${id}`, {}));
        if (!answer || killed) return;
        if (answer.status === 200) approved.push(id);
        else unexpected.push(`approve ${id} ${answer.status}: ${answer.text.slice(0, 200)}`);
      }
    }
  };

  const exportFiles = async () => {
    while (!killed) {
      filesInFlight++;
      const sending = { key: `batch-${crypto.randomUUID()}`, answered: false };
      fileRequests.push(sending);
      const sent = request(() =>
        people.admin.session.post("console/payouts/batches", { scheme: "sepa" }, { "Idempotency-Key": sending.key })
      ).finally(() => filesInFlight--);
      // Aimed: killed while a file of approved payments is being made.
      const filed = new Set(batches.flatMap((b) => b.payments.map((p) => p.id)));
      if (aim === "file" && killing && approved.some((id) => !filed.has(id))) {
        setTimeout(kill, 1 + Math.random() * 4);
      }
      const answer = await sent;
      if (!answer || killed) return;
      sending.answered = true;
      if (answer.status === 201) batches.push(answer.json.body as Batch);
      else if (answer.status === 409) await breath();
      else unexpected.push(`batch ${answer.status}: ${answer.text.slice(0, 200)}`);
    }
  };

  await Promise.all([...Array.from({ length: PAYERS }, pay), approve(), exportFiles()]);
  await child.status;
  expect(unexpected).toEqual([]);
  return { made, approved, batches, fileRequests, inFlightAtKill, fileInFlightAtKill };
}

/** Whether the process's main thread is stopped (state T in /proc/PID/stat). */
function isStopped(pid: number): boolean {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  return stat.slice(stat.lastIndexOf(")") + 2).startsWith("T");
}

/**
 * Stops the server (SIGSTOP) a few milliseconds at a time and reads its database while it is
 * stopped: when a file is committed that no answer told of while a file request's Idempotency-Key
 * is still `running`, the moment has come, and the caller kills the server there, still stopped.
 * A portal that commits the answer with the file never shows one; after PROBES looks, the caller
 * kills it at the last of them. Leaves the server stopped either way.
 */
async function killBetweenCommitAndAnswer(
  child: Deno.ChildProcess,
  requests: { key: string; answered: boolean }[],
  answered: () => Batch[],
): Promise<void> {
  for (let probe = 1;; probe++) {
    await new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * 4));
    child.kill("SIGSTOP");
    while (!isStopped(child.pid)) await new Promise((resolve) => setTimeout(resolve, 0));
    const waiting = requests.filter((r) => !r.answered).map((r) => r.key);
    const db = await openDatabase({ url: databaseUrl() });
    try {
      const { rows: files } = await db.$client.execute("SELECT id FROM payout_batches");
      const told = new Set(answered().map((b) => b.id));
      const { rows: running } = await db.$client.execute({
        sql: "SELECT key FROM idempotency_keys WHERE state = 'running' AND key IN (SELECT value FROM json_each(?))",
        args: [JSON.stringify(waiting)],
      });
      if (running.length && files.some((f) => !told.has(Number(f.id)))) return;
    } finally {
      db.$client.close();
    }
    if (probe >= PROBES) return;
    child.kill("SIGCONT");
  }
}

/** Everything the file and the restarted server say, checked against what was answered. */
async function verifyAfterRestart(answered: { made: Made[]; approved: number[]; batches: Batch[] }) {
  const db = reader!;
  const report = await checkLedger(db);
  expect(report.violations, formatReport(report)).toEqual([]);

  const rows = (await db.$client.execute(
    "SELECT id, status, sell_minor, buy_minor, batch_id, rail_reference FROM payments",
  )).rows as unknown as {
    id: number;
    status: string;
    sell_minor: number;
    buy_minor: number;
    batch_id: number | null;
    rail_reference: string | null;
  }[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const payment of answered.made) {
    const row = byId.get(payment.id);
    expect(row, `payment ${payment.id}, answered 201`).toBeDefined();
    expect([row!.sell_minor, row!.buy_minor]).toEqual([minor(payment.sell_amount), minor(payment.buy_amount)]);
  }
  for (const id of answered.approved) {
    expect(["approved", "submitted"], `payment ${id}, approved with a 200`).toContain(byId.get(id)?.status);
  }

  // Each file holds exactly the payments marked with it, and says so in its count and total.
  const files = (await db.$client.execute(
    "SELECT id, message_id, payment_count, total_minor, file FROM payout_batches ORDER BY id",
  )).rows as unknown as { id: number; message_id: string; payment_count: number; total_minor: number; file: string }[];
  const filed = new Map<number, number>();
  for (const file of files) {
    expect(file.message_id, `file ${file.id} was made whole`).toMatch(/^PAYOUTS-\d{8}-\d+$/);
    const inFile = [...file.file.matchAll(/<EndToEndId>PAYMENT-(\d+)<\/EndToEndId>/g)].map((m) => Number(m[1]));
    const marked = rows.filter((r) => r.batch_id === file.id);
    expect(inFile.toSorted((a, b) => a - b), `file ${file.id}`).toEqual(
      marked.map((r) => r.id).toSorted((a, b) => a - b),
    );
    expect(file.payment_count).toBe(inFile.length);
    expect(file.total_minor).toBe(marked.reduce((sum, r) => sum + r.buy_minor, 0));
    for (const id of inFile) {
      expect(filed.get(id), `payment ${id} is in files ${filed.get(id)} and ${file.id}`).toBeUndefined();
      filed.set(id, file.id);
    }
  }
  for (const row of rows.filter((r) => r.batch_id !== null)) {
    expect([row.status, row.rail_reference], `payment ${row.id} in file ${row.batch_id}`)
      .toEqual(["submitted", `PAYMENT-${row.id}`]);
  }
  for (const batch of answered.batches) {
    expect(batch.payments.map((p) => filed.get(p.id)), `file ${batch.id}, answered 201`)
      .toEqual(batch.payments.map(() => batch.id));
  }
  return { payments: rows.length, files: files.length, filed: filed.size };
}

/**
 * The file requests in flight at the kill, retried with their Idempotency-Keys on the restarted
 * server: a file that committed without its answer is answered to its retry (its answer committed
 * with it, decision 025), never made again; a request that left nothing makes its file now, or
 * finds nothing waiting, or its claim still holds the key. Answers the files the retries answered.
 */
async function retryUnansweredFiles(admin: HttpAdmin, requests: { key: string; answered: boolean }[], known: Batch[]) {
  const answeredIds = new Set(known.map((b) => b.id));
  const onDisk = (await reader!.$client.execute("SELECT id FROM payout_batches")).rows.map((r) => Number(r.id));
  const unanswered = onDisk.filter((id) => !answeredIds.has(id));
  const retried: Batch[] = [];
  for (const { key } of requests.filter((r) => !r.answered)) {
    const retry = await admin.session.post("console/payouts/batches", { scheme: "sepa" }, { "Idempotency-Key": key });
    if (retry.status === 201) {
      retried.push(retry.json.body as Batch);
      const again = await admin.session.post("console/payouts/batches", { scheme: "sepa" }, { "Idempotency-Key": key });
      expect([again.status, again.text], `the retry of ${key}, again`).toEqual([201, retry.text]);
    } else {
      expect([409], `the retry of ${key}: ${retry.text}`).toContain(retry.status);
      expect([
        "A request with this Idempotency-Key is still in progress.",
        "No approved SEPA payment is waiting for a file.",
      ]).toContain(retry.json.error);
    }
  }
  // Every file on disk that nobody was told of is told to its retry.
  expect(retried.map((b) => b.id), "files committed without their answer").toEqual(
    expect.arrayContaining(unanswered),
  );
  return { retried, committedUnanswered: unanswered.length };
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
  "payments made, approved and put in SEPA files survive a SIGKILL: the ledger checks out, every 201 is there, no payment is in two files",
  async () => {
    server = await startServer("main.ts", ENV);
    dataDir = server.dataDir;
    // The set-up's database handle is closed before the kill, so the restarted server recovers the WAL itself.
    const setup = await openDatabase({ url: databaseUrl() });
    let people: People;
    try {
      const admin = await createAdminOverHttp(server.url, setup);
      const payer = await fundedCustomerOverHttp(server.url, setup, admin, {
        funds: { EUR: "100000.00" },
        first: "Paying",
        last: "Crash",
      });
      const other = await fundedCustomerOverHttp(server.url, setup, admin, {
        funds: { EUR: "10.00" },
        first: "Approving",
        last: "Crash",
      });
      // The second person approves on the payer's account (as an accepted invitation makes them).
      const [{ account_id }] = (await setup.$client.execute({
        sql: "SELECT account_id FROM account_members WHERE user_id = ?",
        args: [payer.id],
      })).rows as unknown as { account_id: number }[];
      await setup.$client.execute({
        sql: "INSERT INTO account_members (account_id, user_id, role, created_at) VALUES (?, ?, 'approver', ?)",
        args: [account_id, other.id, Date.now()],
      });
      expectAnswer("account/select", await other.session.post("account/select", { account_ref: payer.accountRef }));
      const recipient = expectAnswer<{ body: { id: number } }>(
        "account/recipients",
        await payer.session.post("account/recipients", {
          name: "Jeanne Martin",
          type: "person",
          currency: "EUR",
          country: "FR",
          details: { iban: "FR1420041010050500013M02606" },
        }),
        201,
      );
      expectAnswer(
        "account/approvals",
        await payer.session.put("account/approvals", { mode: "all", thresholds: {}, new_recipient: false }),
      );
      people = { payer, approver: other.session, admin, recipientId: recipient.json.body.id };
    } finally {
      setup.$client.close();
    }

    const answered = { made: [] as Made[], approved: [] as number[], batches: [] as Batch[] };
    for (const [i, aim] of AIMS.entries()) {
      const cycle = i + 1;
      const result = await streamAndKill(people, aim, answered.batches);
      expect(result.made.length).toBeGreaterThanOrEqual(KILL_AFTER);
      expect(result.inFlightAtKill, "requests in flight when the server was killed").toBeGreaterThan(0);
      answered.made.push(...result.made);
      answered.approved.push(...result.approved);
      answered.batches.push(...result.batches);

      // Restart on the same file; the sessions are in the database, so everyone stays signed in.
      server = await startServerOn(dataDir, "main.ts", ENV);
      for (const session of [people.payer.session, people.approver, people.admin.session]) {
        session.baseUrl = server.url;
      }
      reader = await openDatabase({ url: databaseUrl() });
      await verifyAfterRestart(answered);
      const retries = await retryUnansweredFiles(people.admin, result.fileRequests, answered.batches);
      answered.batches.push(...retries.retried);
      const seen = await verifyAfterRestart(answered);
      console.log(
        `[payouts-crash] cycle ${cycle} (${aim}): ${result.made.length} payments, ${result.approved.length} approvals and ` +
          `${result.batches.length} files answered; ${result.inFlightAtKill} requests in flight at the kill${
            result.fileInFlightAtKill ? ", a file among them" : ""
          }; ` +
          `on file ${seen.payments} payments, ${seen.files} files holding ${seen.filed}; ` +
          `${retries.committedUnanswered} files committed without their answer, ${retries.retried.length} answered to their retry`,
      );

      // The restarted server pays, approves and files again; the task's ledger check passes after it.
      const quote = expectAnswer<{ body: { id: string } }>(
        "account/payments/quote",
        await people.payer.session.post("account/payments/quote", {
          recipient_id: people.recipientId,
          amount: "10.00",
          fixed: "send",
          sell_currency: "EUR",
        }),
      );
      const paid = expectAnswer<{ body: Made }>(
        "account/payments",
        await people.payer.session.post("account/payments", { quote_id: quote.json.body.id, reference: "After" }),
        201,
      );
      answered.made.push(paid.json.body);
      expectAnswer("approve", await people.approver.put(`account/pendingpayments/update?id=${paid.json.body.id}`, {}));
      const pending = expectAnswer<{ body: { id: number }[] }>(
        "account/pendingpayments/all",
        await people.approver.get("account/pendingpayments/all"),
      );
      for (const { id } of pending.json.body) {
        expectAnswer("approve", await people.approver.put(`account/pendingpayments/update?id=${id}`, {}));
      }
      const file = expectAnswer<{ body: Batch }>(
        "console/payouts/batches",
        await people.admin.session.post("console/payouts/batches", { scheme: "sepa" }),
        201,
      );
      expect(file.json.body.payments.map((p) => p.id)).toContain(paid.json.body.id);
      answered.batches.push(file.json.body);
      await verifyAfterRestart(answered);
      const waiting = await reader.$client.execute(
        "SELECT count(*) AS n FROM payments WHERE status IN ('pending_approval', 'approved')",
      );
      expect(waiting.rows[0].n, "every payment is approved and filed").toBe(0);
      await ledgerCheckTask();
      reader.$client.close();
      reader = null;
    }
  },
  300_000,
);
