import { parse } from "csv-parse/sync";
import { count, eq, sql } from "drizzle-orm";
import { extractText, getDocumentProxy } from "unpdf";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { accounts } from "../../db/schema.ts";
import { jobs } from "../../db/schema-jobs.ts";
import { statements } from "../../db/schema-statements.ts";
import { creditReceipt } from "../../server/ledger/movements.ts";
import { enqueue } from "../../server/jobs/queue.ts";
import { JobRunner } from "../../server/jobs/runner.ts";
import { captureLog } from "../../server/log.ts";
import { expireStatementsJob, statementJob } from "../../server/statements/job.ts";
import { STATEMENTS_AT_ONCE } from "../../server/statements/service.ts";
import { type Admin, createAdmin, expectStatus, MINUTE, signIn, signinApp, TestClock } from "../helpers/client.ts";
import { testJobDeps } from "../helpers/jobs.ts";
import { balances, fund, type MoneyApp, type OpenCustomer, openCustomer } from "../helpers/money.ts";
import { addMember, addRecipient, balanceOf, paid, paymentAccount } from "../helpers/payments.ts";

/**
 * Statements (issue 10, decision 037): a customer asks for one, follows its job, downloads the
 * file (a PDF whose text names the company, the account and its balances; a CSV a CSV library
 * reads), for 7 days and not after; nobody else reaches it.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const DAY = 24 * 60 * 60 * 1000;
let t: MoneyApp;
let admin: Admin;
let owner: OpenCustomer;
let stranger: OpenCustomer;
let accountName: string;
let today: string;

const daysAgo = (n: number) => new Date(t.clock.now() - n * DAY).toISOString().slice(0, 10);

/**
 * The ledger stamps movements with the real time and a statement closes at the moment it is asked
 * for (the app's clock): the clock catches up with the real time before each request.
 */
const catchUp = () => t.clock.set(Math.max(t.clock.now(), Date.now()));

/** Runs the jobs that are due, on the app's clock. */
async function runJobs() {
  await new JobRunner({
    db: t.db,
    jobs: [statementJob, expireStatementsJob],
    deps: await testJobDeps(t.db),
    now: t.clock.now,
  }).drain();
}

async function pdfText(bytes: Uint8Array): Promise<string> {
  const { text } = await extractText(await getDocumentProxy(bytes), { mergePages: true });
  return text;
}

beforeAll(async () => {
  // The ledger stamps movements with the real time: the app's clock starts there too.
  t = await signinApp({ clock: new TestClock(Date.now()) });
  admin = await createAdmin(t);
  today = t.clock.today();
  owner = await openCustomer(t);
  stranger = await openCustomer(t);
  await fund(t, admin, owner, "GBP", "1000.00");
  await fund(t, admin, owner, "EUR", "250.50");
  await fund(t, admin, stranger, "GBP", "5.00");
  [{ name: accountName }] = await t.db.select({ name: accounts.name }).from(accounts).where(
    eq(accounts.accountRef, owner.accountRef),
  );
});

describe("a PDF statement", () => {
  let statementId: number;
  let jobId: number;

  test("is asked for (202 with its job), made in the background with its progress, and downloads", async () => {
    catchUp();
    const asked = await owner.client.post("account/statements", {
      currency: "GBP",
      from: daysAgo(30),
      to: today,
      format: "pdf",
    });
    expectStatus(asked, 202);
    jobId = asked.json.body.job.id;
    statementId = asked.json.body.statement.id;
    expect(asked.json.body.job).toMatchObject({ kind: "statements.generate", status: "queued", progress: null });
    expect(asked.json.body.statement).toMatchObject({ state: "preparing", format: "pdf", file_url: null });

    const waiting = await owner.client.get(`account/jobs/${jobId}`);
    expectStatus(waiting, 200);
    expect(waiting.json.body.status).toBe("queued");
    const early = await owner.client.download(`account/statements/${statementId}/file`);
    expect(early.status).toBe(409);

    await runJobs();
    const done = await owner.client.get(`account/jobs/${jobId}`);
    expectStatus(done, 200);
    expect(done.json.body).toMatchObject({
      status: "succeeded",
      progress: { done: 1, total: 1 },
      result: { statement_id: statementId, file: `/api/account/statements/${statementId}/file` },
    });

    const file = await owner.client.download(`account/statements/${statementId}/file`);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("application/pdf");
    expect(file.headers.get("content-disposition")).toBe(
      `attachment; filename="statement-${owner.accountRef}-GBP-${daysAgo(30)}-to-${today}.pdf"`,
    );
    const text = await pdfText(file.bytes);
    expect(text).toContain(`Account reference: ${owner.accountRef}`);
    expect(text).toContain(accountName);
    // The company: its name and the bank account customers pay into (server/money/funding.ts).
    expect(text).toContain("Portal");
    expect(text).toContain("GB33BUKB20201555555555");
    expect(text).toContain(`Opening balance on ${daysAgo(30)}: 0.00 GBP`);
    expect(text).toContain("receipt");
    expect(text).toContain(`Closing balance on ${today}: 1,000.00 GBP`);
    // One currency asked for: the EUR balance is not on it.
    expect(text).not.toContain("250.50");
  });

  test("is listed among the account's statements, ready", async () => {
    const list = await owner.client.get("account/statements");
    expectStatus(list, 200);
    expect(list.json.body.items).toContainEqual(expect.objectContaining({
      id: statementId,
      state: "ready",
      file_url: `/api/account/statements/${statementId}/file`,
      line_count: 1,
    }));
    const others = await stranger.client.get("account/statements");
    expect(others.json.body.items.map((s: { id: number }) => s.id)).not.toContain(statementId);
  });

  test("is not found for another account, nor is its job", async () => {
    expect((await stranger.client.download(`account/statements/${statementId}/file`)).status).toBe(404);
    expectStatus(await stranger.client.get(`account/jobs/${jobId}`), 404);
  });

  test("downloads for 7 days, then answers 410 saying so, and the hourly job deletes the file", async () => {
    const start = t.clock.now();
    t.clock.advance(7 * DAY - MINUTE);
    // A week on, the customer signs in again (a session lasts hours, not days).
    await signIn(owner.client, owner.email, owner.password);
    expect((await owner.client.download(`account/statements/${statementId}/file`)).status).toBe(200);
    await enqueue(t.db, expireStatementsJob, {}, { now: new Date(t.clock.now()) });
    await runJobs();
    expect((await owner.client.download(`account/statements/${statementId}/file`)).status).toBe(200);

    t.clock.advance(2 * MINUTE);
    const gone = await owner.client.get(`account/statements/${statementId}/file`);
    expectStatus(gone, 410);
    expect(gone.json.error).toMatch(/expired on .* files are kept for 7 days/);
    const list = await owner.client.get("account/statements");
    expect(list.json.body.items.map((s: { id: number }) => s.id)).not.toContain(statementId);

    await enqueue(t.db, expireStatementsJob, {}, { now: new Date(t.clock.now()) });
    await runJobs();
    const [row] = await t.db.select().from(statements).where(eq(statements.id, statementId));
    expect(row.content).toBeNull();
    expect(row.purgedAt).not.toBeNull();
    expectStatus(await owner.client.get(`account/statements/${statementId}/file`), 410);
    t.clock.set(start);
    await signIn(owner.client, owner.email, owner.password);
  });
});

describe("a CSV statement of every currency", () => {
  test("reads with a CSV library: per currency its opening, each line, its closing = the balance", async () => {
    catchUp();
    const asked = await owner.client.post("account/statements", {
      currency: null,
      from: daysAgo(2),
      to: today,
      format: "csv",
    });
    expectStatus(asked, 202);
    await runJobs();
    const id = asked.json.body.statement.id;
    const csv = await owner.client.download(`account/statements/${id}/file`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const rows = parse(new TextDecoder().decode(csv.bytes), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.account_ref, r.currency, r.type, r.amount, r.balance])).toEqual([
      [owner.accountRef, "EUR", "opening", "", "0.00"],
      [owner.accountRef, "EUR", "receipt", "250.50", "250.50"],
      [owner.accountRef, "EUR", "closing", "", "250.50"],
      [owner.accountRef, "GBP", "opening", "", "0.00"],
      [owner.accountRef, "GBP", "receipt", "1000.00", "1000.00"],
      [owner.accountRef, "GBP", "closing", "", "1000.00"],
    ]);
    expect(await balances(owner.client)).toMatchObject({ EUR: "250.50", GBP: "1000.00" });
  });
});

describe("a statement of conversions and payments", () => {
  test("shows the rate on the conversion, each fee on its own line, holds, releases and payments", async () => {
    catchUp();
    const account = await paymentAccount(t, admin, { GBP: "2000.00" });
    const client = account.owner.client;
    const quoted = await client.post("account/conversions/quote", {
      sell_currency: "GBP",
      buy_currency: "EUR",
      amount: "100.00",
      fixed: "sell",
    });
    expectStatus(quoted, 200);
    expectStatus(await client.post("account/conversions", { quote_id: quoted.json.body.id }), 201);
    const recipientId = await addRecipient(t, account, { currency: "GBP", country: "GB", name: "Jean Dupont" });
    const sent = await paid(client, { recipient_id: recipientId, amount: "50.00", sell_currency: "GBP" }, "Rent");
    const dropped = await paid(client, { recipient_id: recipientId, amount: "20.00", sell_currency: "GBP" }, "Oops");
    expectStatus(await client.post(`account/payments/${dropped.id}/cancel`, { reason: "Wrong amount" }), 200);
    catchUp();
    expectStatus(await admin.client.post(`console/payouts/${sent.id}/submit`), 200);

    catchUp();
    const asked = await client.post("account/statements", { currency: "GBP", from: today, to: today, format: "csv" });
    expectStatus(asked, 202);
    await runJobs();
    const csv = await client.download(`account/statements/${asked.json.body.statement.id}/file`);
    const rows = parse(new TextDecoder().decode(csv.bytes), { columns: true }) as Record<string, string>[];
    const q = quoted.json.body;
    const net = (gross: string, fee: string) => (Number(gross) - Number(fee)).toFixed(2);
    expect(rows.map((r) => [r.type, r.description, r.rate, r.amount, r.held])).toEqual([
      ["opening", `Opening balance on ${today}`, "", "", "0.00"],
      ["receipt", expect.stringContaining("Receipt from A. Payer"), "", "2000.00", "0.00"],
      ["conversion", "Conversion GBP to EUR", `1 GBP = ${q.rate} EUR`, `-${net(q.sell_amount, q.fee)}`, "0.00"],
      ["fee", "Fee: Conversion GBP to EUR", "", `-${q.fee}`, "0.00"],
      ["hold", `Payment ${sent.id} to Jean Dupont (Rent): held until sent`, "", "0.00", sent.sell_amount],
      [
        "hold",
        `Payment ${dropped.id} to Jean Dupont (Oops): held until sent`,
        "",
        "0.00",
        (Number(sent.sell_amount) + Number(dropped.sell_amount)).toFixed(2),
      ],
      ["release", `Payment ${dropped.id} to Jean Dupont (Oops): released`, "", "0.00", sent.sell_amount],
      [
        "payment",
        `Payment ${sent.id} to Jean Dupont (Rent): sent`,
        "",
        `-${net(sent.sell_amount, sent.fee)}`,
        sent.fee,
      ],
      ["fee", `Fee: Payment ${sent.id} to Jean Dupont (Rent)`, "", `-${sent.fee}`, "0.00"],
      ["closing", `Closing balance on ${today}`, "", "", "0.00"],
    ]);
    // The closing balance is the balance the account shows, and each line's balance follows.
    const { available, held } = await balanceOf(client, "GBP");
    expect(rows.at(-1)!.balance).toBe((Number(available) + Number(held)).toFixed(2));
    let running = 0;
    for (const row of rows.slice(1, -1)) {
      running += Math.round(Number(row.amount) * 100);
      expect(row.balance).toBe((running / 100).toFixed(2));
    }
  });
});

describe("the statement's job", () => {
  test("reports its progress as it goes, in lines written out of the statement's lines", async () => {
    catchUp();
    const busy = await openCustomer(t);
    const [{ id: accountId }] = await t.db.select({ id: accounts.id }).from(accounts).where(
      eq(accounts.accountRef, busy.accountRef),
    );
    await t.db.transaction(async (tx) => {
      for (let i = 1; i <= 1_234; i++) {
        await creditReceipt(tx, { accountId, currency: "GBP", amount: 100 + i, reference: `busy-${i}` });
      }
    });
    await t.db.run(sql`CREATE TABLE IF NOT EXISTS test_progress (job_id INTEGER, done INTEGER, total INTEGER)`);
    await t.db.run(sql.raw(`CREATE TRIGGER IF NOT EXISTS test_progress_log AFTER UPDATE OF progress_done ON jobs
      BEGIN INSERT INTO test_progress VALUES (NEW.id, NEW.progress_done, NEW.progress_total); END`));
    catchUp();
    const asked = await busy.client.post("account/statements", {
      currency: "GBP",
      from: today,
      to: today,
      format: "pdf",
    });
    expectStatus(asked, 202);
    await runJobs();
    const seen = await t.db.all<{ done: number; total: number }>(
      sql`SELECT done, total FROM test_progress WHERE job_id = ${asked.json.body.job.id}`,
    );
    expect(seen.map((p) => [p.done, p.total])).toEqual([
      [0, 1_234],
      [500, 1_234],
      [1_000, 1_234],
      [1_234, 1_234],
    ]);
    const job = await busy.client.get(`account/jobs/${asked.json.body.job.id}`);
    expect(job.json.body.progress).toMatchObject({ done: 1_234, total: 1_234 });
  });

  test("resumed after its process died once the file was stored, it answers without making it again", async () => {
    catchUp();
    const asked = await owner.client.post("account/statements", {
      currency: "EUR",
      from: today,
      to: today,
      format: "csv",
    });
    expectStatus(asked, 202);
    await runJobs();
    const id = asked.json.body.statement.id;
    const jobId = asked.json.body.job.id;
    const [made] = await t.db.select().from(statements).where(eq(statements.id, id));
    // As if the process died after the file's step committed and before the job was recorded done:
    // the job is running under a lease that has expired, its steps recorded.
    await t.db.update(jobs).set({
      status: "running",
      leaseOwner: "a process that died",
      leaseExpiresAt: new Date(t.clock.now() - 1),
      result: null,
      finishedAt: null,
    }).where(eq(jobs.id, jobId));
    await runJobs();
    const [job] = await t.db.select().from(jobs).where(eq(jobs.id, jobId));
    expect(job).toMatchObject({ status: "succeeded", attempts: 2 });
    expect(job.result).toEqual({ statement_id: id, file: `/api/account/statements/${id}/file` });
    const [after] = await t.db.select().from(statements).where(eq(statements.id, id));
    expect(after.readyAt).toEqual(made.readyAt);
    expect(after.content).toEqual(made.content);
  });
});

describe("a statement that cannot be made", () => {
  test("is retried, then failed with words for the customer, and listed as failed", async () => {
    catchUp();
    // The cause is logged for us (and the runner says the job failed): kept here, as JSON lines.
    const lines: string[] = [];
    const restore = captureLog((line) => lines.push(line), "warn");
    await t.db.run(sql.raw(`CREATE TRIGGER test_no_room BEFORE UPDATE OF content ON statements
      WHEN NEW.content IS NOT NULL BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`));
    try {
      const asked = await owner.client.post("account/statements", {
        currency: "GBP",
        from: today,
        to: today,
        format: "csv",
      });
      expectStatus(asked, 202);
      for (let attempt = 1; attempt <= 3; attempt++) {
        await runJobs();
        t.clock.advance(2 * MINUTE);
      }
      const job = await owner.client.get(`account/jobs/${asked.json.body.job.id}`);
      expect(job.json.body).toMatchObject({
        status: "failed",
        error:
          "Your statement could not be made because of a problem on our side. Ask for it again; if it fails again, write to us.",
      });
      const [row] = await t.db.select({ attempts: jobs.attempts }).from(jobs).where(
        eq(jobs.id, asked.json.body.job.id),
      );
      expect(row.attempts).toBe(3);
      const list = await owner.client.get("account/statements");
      expect(list.json.body.items).toContainEqual(
        expect.objectContaining({ id: asked.json.body.statement.id, state: "failed", file_url: null }),
      );
      // Our log's own line (JSON, as every other), naming the statement and the database's reason.
      const cause = lines.map((line) => JSON.parse(line)).find((line) =>
        line.msg === "statement could not be made" && line.attempt === 3
      );
      expect(cause).toMatchObject({ level: "error", statement_id: asked.json.body.statement.id });
      expect(cause.error.message).toContain("database or disk is full");
    } finally {
      restore();
      await t.db.run(sql`DROP TRIGGER test_no_room`);
    }
  });
});

describe("statements asked for at once", () => {
  test("an account has at most 3 waiting or being made: the next is refused (429) saying why and when to ask again", async () => {
    catchUp();
    const account = await paymentAccount(t, admin, { GBP: "10.00" });
    // A viewer may ask for statements (decision 037), so a viewer is held to the account's limit too.
    const viewer = await addMember(t, account, "viewer");
    const year = { currency: null, from: daysAgo(365), to: today, format: "pdf" };
    const asked = [];
    for (let n = 0; n < STATEMENTS_AT_ONCE; n++) {
      const res = await (n === 0 ? account.owner.client : viewer.client).post("account/statements", year);
      expectStatus(res, 202);
      asked.push(res.json.body.statement.id);
    }
    expect(STATEMENTS_AT_ONCE).toBe(3);
    const [before] = await t.db.select({ n: count() }).from(statements);
    const refused = await viewer.client.post("account/statements", year);
    expectStatus(refused, 429);
    expect(refused.json.error).toBe(
      "Your account already has 3 statements being made. " +
        "Ask for another once one of them is ready: the list of statements shows each as it is made.",
    );
    // Nothing was recorded or queued for the refused request.
    const [after] = await t.db.select({ n: count() }).from(statements);
    expect(after.n).toBe(before.n);
    // Another account is not held back by this one's statements.
    expectStatus(await owner.client.post("account/statements", { ...year, format: "csv" }), 202);
    // Once they are made there is room again.
    await runJobs();
    const list = await viewer.client.get("account/statements");
    expect(list.json.body.items.filter((s: { state: string }) => s.state === "ready").map((s: { id: number }) => s.id))
      .toEqual(expect.arrayContaining(asked));
    expectStatus(await viewer.client.post("account/statements", year), 202);
  });
});

describe("a request that cannot be a statement", () => {
  test.each([
    [{ currency: "XYZ", from: "2026-01-01", to: "2026-01-31", format: "pdf" }, "currency"],
    [{ currency: "GBP", from: "2026-02-01", to: "2026-01-31", format: "pdf" }, "to"],
    [{ currency: "GBP", from: "2024-01-01", to: "2026-01-31", format: "pdf" }, "to"],
    [{ currency: "GBP", from: "2026-01-01", to: "31/01/2026", format: "pdf" }, "to"],
    [{ currency: "GBP", from: "2026-01-01", to: "2026-01-31", format: "xlsx" }, "format"],
  ])("is refused (422, naming %j's field %s) and nothing is queued", async (body, field) => {
    const [before] = await t.db.select({ n: count() }).from(statements);
    const res = await owner.client.post("account/statements", body);
    expectStatus(res, 422);
    expect(Object.keys(res.json.fields ?? {})).toContain(field);
    const [after] = await t.db.select({ n: count() }).from(statements);
    expect(after.n).toBe(before.n);
  });

  test("a period ending after today is refused", async () => {
    const res = await owner.client.post("account/statements", {
      currency: "GBP",
      from: today,
      to: new Date(t.clock.now() + 2 * DAY).toISOString().slice(0, 10),
      format: "csv",
    });
    expectStatus(res, 422);
    expect(res.json.fields).toMatchObject({ to: "The period cannot end after today." });
  });
});
