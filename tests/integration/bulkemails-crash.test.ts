import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it, vi } from "vitest";
import { bulkEmailRecipients, bulkEmails } from "../../db/schema-bulkemails.ts";
import { jobs } from "../../db/schema-jobs.ts";
import { emails, users } from "../../db/schema.ts";
import { PARALLEL } from "../../server/bulkemails/job.ts";
import { createBulkEmail, sendBulkEmail, sendToInDoubt } from "../../server/bulkemails/service.ts";
import { insertCustomers } from "../helpers/bulk-customers.ts";
import { testDatabaseFile } from "../helpers/db.ts";
import { startSmtp } from "../helpers/smtp.ts";
import { workerProcesses } from "../helpers/worker-processes.ts";

/**
 * Issue 11: a bulk email to 2,000 customers through a real SMTP server, its runner killed (SIGKILL)
 * in the middle of the send and another started: the email is finished and nobody is mailed twice
 * (decision 050). Only the mails in flight at the kill (10 at most) can be in doubt: those are
 * reported, not sent again by the job; every other recipient got exactly one mail, those of the
 * claimed batch never handed over included. Then the administrator decides to send to the in-doubt
 * ones: everyone has the email, and only they may have it twice.
 */

const { db, path } = await testDatabaseFile();
const RECIPIENTS = 2_000;
/** Slow enough that the kill comes mid-send: about 5 s for all. */
const RATE = 400;
const KILL_AFTER = 600;

const { promise: reached, resolve: reach } = Promise.withResolvers<void>();
/** The KILL_AFTER-th mail is kept but never answered: the runner dies not knowing (in doubt for sure). */
const { promise: never, resolve: endNever } = Promise.withResolvers<void>();
const smtp = await startSmtp((_mail, count) => {
  if (count !== KILL_AFTER) return;
  reach();
  return never;
});

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

describe("a bulk email whose runner is killed mid-send", () => {
  it(
    "is finished by the next runner, mailing nobody twice and every recipient not in doubt once; the in-doubt ones when decided",
    async () => {
      const [admin] = await db.insert(users).values({ username: "crash-admin@portal.test", level: "Admin" })
        .returning({ id: users.id });
      const people = await insertCustomers(db, RECIPIENTS, { prefix: "crash" });
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
      await reached;
      first.child.kill("SIGKILL");
      await first.child.status;
      const [interrupted] = await db.select().from(jobs).where(eq(jobs.id, jobId!));
      expect(interrupted, first.log()).toMatchObject({ status: "running", leaseOwner: "first", attempts: 1 });
      const mailedBeforeTheKill = smtp.received.length;
      expect(mailedBeforeTheKill).toBeGreaterThanOrEqual(KILL_AFTER);
      expect(mailedBeforeTheKill).toBeLessThan(RECIPIENTS);

      const second = startWorker("second");
      await vi.waitFor(async () => {
        const [job] = await db.select({ status: jobs.status }).from(jobs).where(eq(jobs.id, jobId!));
        if (job.status !== "succeeded") throw new Error(`The job is ${job.status}. The runner said:\n${second.log()}`);
      }, { timeout: 120_000, interval: 200 });

      const [done] = await db.select().from(jobs).where(eq(jobs.id, jobId!));
      expect(done).toMatchObject({ attempts: 2, leaseOwner: null });
      const states = new Map(
        (await db.select({ email: bulkEmailRecipients.email, state: bulkEmailRecipients.state }).from(
          bulkEmailRecipients,
        )
          .where(eq(bulkEmailRecipients.bulkEmailId, id))).map((r) => [r.email, r.state]),
      );
      expect(states.size).toBe(RECIPIENTS);
      const received = smtp.perRecipient();
      const times = (email: string) => received.get(email) ?? 0;
      // Nobody twice.
      expect(people.filter((p) => times(p.email) > 1)).toEqual([]);
      // Sent means received once; not received means in doubt (the batch of the kill), nothing else.
      expect(people.filter((p) => states.get(p.email) === "sent" && times(p.email) !== 1)).toEqual([]);
      expect(people.filter((p) => times(p.email) === 0 && states.get(p.email) !== "in doubt")).toEqual([]);
      const inDoubt = people.filter((p) => states.get(p.email) === "in doubt");
      // The mail never answered is one of them; no more than the wave handed over (the batch it was
      // claimed in holds 100 at this rate: the rest of it was sent by the second runner, once).
      expect(inDoubt.length).toBeGreaterThanOrEqual(1);
      expect(inDoubt.length).toBeLessThanOrEqual(PARALLEL);
      expect(people.filter((p) => !["sent", "in doubt"].includes(states.get(p.email)!))).toEqual([]);
      // The second runner mailed the rest.
      expect(smtp.received.length).toBeGreaterThan(mailedBeforeTheKill);
      const [email] = await db.select({ finishedAt: bulkEmails.finishedAt }).from(bulkEmails).where(
        eq(bulkEmails.id, id),
      );
      expect(email.finishedAt).not.toBeNull();
      // The console's emails hold a row for each mail handed over, saying the same (decision 061).
      const kept = async () => {
        const statuses = new Map<string, string[]>();
        const rows = await db.select({ to: emails.to, status: emails.status }).from(emails)
          .where(eq(emails.bulkEmailId, id)).orderBy(emails.id);
        for (const row of rows) statuses.set(row.to, [...(statuses.get(row.to) ?? []), row.status]);
        return (email: string) => (statuses.get(email) ?? []).join(", ");
      };
      const keptAtFirst = await kept();
      expect(people.filter((p) => keptAtFirst(p.email) !== states.get(p.email))).toEqual([]);

      // The administrator decides to send it to the in-doubt ones: the second runner sends them.
      const decided = await sendToInDoubt(db, admin.id, id, new Date(), store);
      expect(decided).toMatchObject({ finished_at: null, counts: { pending: inDoubt.length, in_doubt: 0 } });
      await vi.waitFor(async () => {
        const [again] = await db.select({ status: jobs.status }).from(jobs).innerJoin(
          bulkEmails,
          eq(bulkEmails.jobId, jobs.id),
        )
          .where(eq(bulkEmails.id, id));
        if (again.status !== "succeeded") {
          throw new Error(`The job is ${again.status}. The runner said:\n${second.log()}`);
        }
      }, { timeout: 60_000, interval: 200 });
      const atLast = smtp.perRecipient();
      const doubted = new Set(inDoubt.map((p) => p.email));
      // Everyone has it now; nobody who was not in doubt has it twice; nobody three times.
      expect(people.filter((p) => (atLast.get(p.email) ?? 0) === 0)).toEqual([]);
      expect(people.filter((p) => !doubted.has(p.email) && atLast.get(p.email) !== 1)).toEqual([]);
      expect(people.filter((p) => atLast.get(p.email)! > 2)).toEqual([]);
      // Each of their two mails is there: the one in doubt, and the one sent since.
      const keptAtLast = await kept();
      expect(people.filter((p) => keptAtLast(p.email) !== (doubted.has(p.email) ? "in doubt, sent" : "sent")))
        .toEqual([]);
      const [after] = await db.select({ finishedAt: bulkEmails.finishedAt }).from(bulkEmails).where(
        eq(bulkEmails.id, id),
      );
      expect(after.finishedAt).not.toBeNull();
      const sentNow = await db.select({ state: bulkEmailRecipients.state }).from(bulkEmailRecipients)
        .where(eq(bulkEmailRecipients.bulkEmailId, id));
      expect(sentNow.filter((r) => r.state !== "sent")).toEqual([]);
    },
    180_000,
  );
});
