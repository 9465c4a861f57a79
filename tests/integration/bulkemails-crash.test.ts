import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { Database } from "../../db/client.ts";
import { bulkEmailRecipients, bulkEmails } from "../../db/schema-bulkemails.ts";
import { jobs } from "../../db/schema-jobs.ts";
import { emails, users } from "../../db/schema.ts";
import { bulkEmailWithRecipients, createBulkEmail, sendBulkEmail } from "../../server/bulkemails/service.ts";
import { insertCustomers } from "../helpers/bulk-customers.ts";
import { testDatabaseFile } from "../helpers/db.ts";
import { startSmtp } from "../helpers/smtp.ts";
import { workerProcesses } from "../helpers/worker-processes.ts";

/**
 * Issue 11: a bulk email to 2,000 customers through a real SMTP server, its runner killed (SIGKILL)
 * in the middle of the send and another started: the email is finished and every recipient has
 * received exactly one mail (decision 050, amended 2026-11-28). A mail goes on the wire whole but
 * for the final dot of its DATA, its wave is committed, and only then are the dots written: killed
 * before a wave's commit, its mails are discarded by the server and sent by the next runner; killed
 * after, they were delivered and the next runner records them so. The two kill points each have a
 * scenario, on a database and a mail server of their own.
 */

const RECIPIENTS = 2_000;
/** Slow enough that the kill comes mid-send: about 5 s for all. */
const RATE = 400;

/** A database with 2,000 customers, a real SMTP server holding back one answer, and runners on both. */
async function scenario(name: string, hold: "the mail" | "the recipient", at: number) {
  const { db, path } = await testDatabaseFile();
  const { promise: reached, resolve: reach } = Promise.withResolvers<string>();
  /** Never settled until the end: an answer the runner waits for when it is killed. */
  const { promise: never, resolve: endNever } = Promise.withResolvers<void>();
  const smtp = await startSmtp(
    (mail, count) => {
      if (hold !== "the mail" || count !== at) return;
      reach(mail.to[0]);
      return never;
    },
    () => false,
    (address, count) => {
      if (hold !== "the recipient" || count !== at) return;
      reach(address);
      return never;
    },
  );
  // The held answer is let go before the server closes, which waits for its sessions.
  afterAll(async () => {
    endNever();
    await smtp.close();
  });
  // Registered after the SMTP server's close, so that it runs first: the runners are killed before
  // the server they send to is closed.
  const startWorker = workerProcesses("tests/helpers/bulk-worker.ts", {
    DATABASE_PATH: path,
    LEASE_MS: "1000",
    SMTP_URL: smtp.url,
  });
  return { name, db, smtp, reached, startWorker };
}

const afterTheCommit = await scenario("after", "the mail", 600);
const beforeTheCommit = await scenario("before", "the recipient", 1_300);

/** Sends the bulk email to everyone, starts the first runner and kills it once `reached`. */
async function sendAndKill({ name, db, reached, startWorker }: typeof afterTheCommit) {
  const [admin] = await db.insert(users).values({ username: `crash-${name}@portal.test`, level: "Admin" })
    .returning({ id: users.id });
  const people = await insertCustomers(db, RECIPIENTS, { prefix: `crash-${name}` });
  const now = new Date();
  const store = () => Promise.resolve();
  const { id } = await createBulkEmail(
    db,
    admin.id,
    { subject: "News", body: "Hello {{name}}", segment: {} },
    now,
    store,
  );
  await sendBulkEmail(db, admin.id, id, RATE, now, store);
  const [{ jobId }] = await db.select({ jobId: bulkEmails.jobId }).from(bulkEmails).where(eq(bulkEmails.id, id));
  const first = startWorker("first");
  return { people, id, jobId: jobId!, first, heldFor: await reached };
}

const statesOf = async (db: Database, id: number) =>
  new Map(
    (await db.select({ email: bulkEmailRecipients.email, state: bulkEmailRecipients.state }).from(bulkEmailRecipients)
      .where(eq(bulkEmailRecipients.bulkEmailId, id))).map((r) => [r.email, r.state]),
  );

/** The second runner finishes the job; then everyone has exactly one mail, recorded as sent, in both records. */
async function finishAndCheck(
  { db, smtp, startWorker }: typeof afterTheCommit,
  { people, id, jobId }: Awaited<ReturnType<typeof sendAndKill>>,
) {
  const mailedBeforeTheKill = smtp.received.length;
  expect(mailedBeforeTheKill).toBeLessThan(RECIPIENTS);
  const second = startWorker("second");
  await vi.waitFor(async () => {
    const [job] = await db.select({ status: jobs.status }).from(jobs).where(eq(jobs.id, jobId));
    if (job.status !== "succeeded") throw new Error(`The job is ${job.status}. The runner said:\n${second.log()}`);
  }, { timeout: 120_000, interval: 200 });
  const [done] = await db.select().from(jobs).where(eq(jobs.id, jobId));
  expect(done).toMatchObject({ attempts: 2, leaseOwner: null });
  // The second runner mailed the rest.
  expect(smtp.received.length).toBeGreaterThan(mailedBeforeTheKill);

  // Every recipient received exactly one mail.
  const received = smtp.perRecipient();
  expect(people.filter((p) => received.get(p.email) !== 1).map((p) => [p.email, received.get(p.email) ?? 0]))
    .toEqual([]);
  expect(smtp.received.length).toBe(RECIPIENTS);
  // Their states say so: sent, nobody in doubt, and the email finished.
  const states = await statesOf(db, id);
  expect(states.size).toBe(RECIPIENTS);
  expect(people.filter((p) => states.get(p.email) !== "sent")).toEqual([]);
  const view = await bulkEmailWithRecipients(db, id, { page: 1, per_page: 1 });
  expect(view).toMatchObject({
    counts: { total: RECIPIENTS, sent: RECIPIENTS, pending: 0, sending: 0, failed: 0, in_doubt: 0 },
  });
  expect(view.finished_at).not.toBeNull();
  // The console's emails hold one row for each mail, sent (decision 061).
  const rows = await db.select({ to: emails.to, status: emails.status }).from(emails).where(eq(emails.bulkEmailId, id));
  const kept = new Map<string, string[]>();
  for (const row of rows) kept.set(row.to, [...(kept.get(row.to) ?? []), row.status]);
  expect(people.filter((p) => kept.get(p.email)?.join(", ") !== "sent")).toEqual([]);
  expect(rows).toHaveLength(RECIPIENTS);
  // The server saw nothing wrong but the killed runner's reset connections.
  expect(smtp.errors).toEqual([]);
}

describe("a bulk email whose runner is killed mid-send", () => {
  it(
    "after a wave's commit (a mail the server has whole, not answered): the next runner records it sent; everyone has exactly one mail",
    async () => {
      const { db, smtp } = afterTheCommit;
      const sent = await sendAndKill(afterTheCommit);
      sent.first.child.kill("SIGKILL");
      await sent.first.child.status;
      const [interrupted] = await db.select().from(jobs).where(eq(jobs.id, sent.jobId));
      expect(interrupted, sent.first.log()).toMatchObject({ status: "running", leaseOwner: "first", attempts: 1 });
      // The held mail's wave was committed before its dot: it is `sending`, and the server has it.
      expect((await statesOf(db, sent.id)).get(sent.heldFor)).toBe("sending");
      expect(smtp.perRecipient().get(sent.heldFor)).toBe(1);
      await finishAndCheck(afterTheCommit, sent);
    },
    180_000,
  );

  it(
    "before a wave's commit (its mails on the wire without their final dot): the server discards them, the next runner sends them; everyone has exactly one mail",
    async () => {
      const { db, smtp } = beforeTheCommit;
      const sent = await sendAndKill(beforeTheCommit);
      // The held recipient's wave waits for it; its other mails reach the dot meanwhile.
      const open = () => {
        const got = smtp.perRecipient();
        return smtp.begun.flatMap((mail) => mail.to).filter((to) => !got.has(to));
      };
      await vi.waitFor(() => expect(open().length).toBeGreaterThanOrEqual(4), { timeout: 10_000, interval: 20 });
      sent.first.child.kill("SIGKILL");
      await sent.first.child.status;
      const begun = new Set(smtp.begun.flatMap((mail) => mail.to));
      const statesAtTheKill = await statesOf(db, sent.id);
      // The held recipient's wave was not committed: still pending, and nobody of it received anything.
      expect(statesAtTheKill.get(sent.heldFor)).toBe("pending");
      const discarded = [...begun].filter((to) => statesAtTheKill.get(to) === "pending");
      expect(discarded.length).toBeGreaterThanOrEqual(4);
      const received = smtp.perRecipient();
      expect(discarded.filter((to) => received.has(to))).toEqual([]);
      expect(received.has(sent.heldFor)).toBe(false);
      await finishAndCheck(beforeTheCommit, sent);
      // They received their one mail from the second runner.
      const atLast = smtp.perRecipient();
      expect([sent.heldFor, ...discarded].filter((to) => atLast.get(to) !== 1)).toEqual([]);
    },
    180_000,
  );
});
