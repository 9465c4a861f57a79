import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { bulkEmailRecipients, bulkEmails, marketingConsents } from "../../db/schema-bulkemails.ts";
import { jobs } from "../../db/schema-jobs.ts";
import { auditLog } from "../../db/schema.ts";
import { bulkEmailJob } from "../../server/bulkemails/job.ts";
import { insertCustomers } from "../helpers/bulk-customers.ts";
import { type Admin, createAdmin, expectStatus, registerCustomer, signinApp } from "../helpers/client.ts";
import { testJobDeps } from "../helpers/jobs.ts";
import { startSmtp } from "../helpers/smtp.ts";
import { JobRunner } from "../../server/jobs/runner.ts";

/**
 * The recipients a crash left in doubt (decision 050, amended): an administrator may send the
 * bulk email to them, knowingly (some may get it twice). The call's refusals, and what it does: the
 * in-doubt ones are mailed by a job, once more; who unsubscribed since is skipped; it is audited.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let t: Awaited<ReturnType<typeof signinApp>>;
let admin: Admin;
let smtp: Awaited<ReturnType<typeof startSmtp>>;

beforeAll(async () => {
  smtp = await startSmtp();
  t = await signinApp({ env: { BULK_EMAIL_RATE: "10000" } });
  admin = await createAdmin(t);
});
afterAll(() => smtp.close());

async function runJobs() {
  const deps = await testJobDeps(t.db, { SMTP_URL: smtp.url });
  await new JobRunner({ db: t.db, jobs: [bulkEmailJob], deps, now: t.clock.now }).drain();
}

/**
 * A bulk email sent and finished, whose recipients are in the states given, as a crash leaves them
 * (the job's own crash is tests/integration/bulkemails-crash.test.ts).
 */
async function crashedEmail(prefix: string, states: ("sent" | "in doubt")[]) {
  const people = await insertCustomers(t.db, states.length, { prefix });
  const now = new Date(t.clock.now());
  const [email] = await t.db.insert(bulkEmails).values({
    subject: "News for {{first_name}}",
    body: "Hello {{name}}",
    segment: {},
    createdBy: admin.id,
    createdAt: now,
    sentBy: admin.id,
    sentAt: now,
    ratePerSecond: 10_000,
    finishedAt: now,
  }).returning({ id: bulkEmails.id });
  await t.db.insert(bulkEmailRecipients).values(people.map((p, i) => ({
    bulkEmailId: email.id,
    userId: p.id,
    email: p.email,
    state: states[i],
    updatedAt: now,
  })));
  return { id: email.id, people };
}

const sendInDoubt = (id: number, key?: string) =>
  admin.client.request(
    "POST",
    `console/bulkemails/${id}/send-in-doubt`,
    {},
    key ? { "Idempotency-Key": key } : undefined,
  );

const statesOf = async (id: number) =>
  new Map(
    (await t.db.select({ email: bulkEmailRecipients.email, state: bulkEmailRecipients.state })
      .from(bulkEmailRecipients).where(eq(bulkEmailRecipients.bulkEmailId, id))).map((r) => [r.email, r.state]),
  );

describe("sending a bulk email to its recipients in doubt", () => {
  test("is not there for a customer, nor for an email that does not exist", async () => {
    const { id } = await crashedEmail("doubt-hidden", ["in doubt"]);
    const customer = await registerCustomer(t);
    const res = await customer.client.post(`console/bulkemails/${id}/send-in-doubt`, {});
    expectStatus(res, 404);
    expectStatus(await admin.client.post(`console/bulkemails/999999/send-in-doubt`, {}), 404);
    // Nothing changed: still in doubt.
    expect([...(await statesOf(id)).values()]).toEqual(["in doubt"]);
  });

  test("is refused with a reason when nobody is in doubt", async () => {
    const { id } = await crashedEmail("doubt-none", ["sent", "sent"]);
    const res = await admin.client.post(`console/bulkemails/${id}/send-in-doubt`, {});
    expectStatus(res, 409);
    expect(res.json.error).toContain("Nobody is in doubt");
    const [email] = await t.db.select().from(bulkEmails).where(eq(bulkEmails.id, id));
    expect(email.finishedAt).not.toBeNull();
    expect(email.jobId).toBeNull();
  });

  test("mails the in-doubt ones once more, skips who unsubscribed since, and is audited", async () => {
    const { id, people } = await crashedEmail("doubt-send", ["sent", "in doubt", "in doubt", "in doubt"]);
    const [, first, second, gone] = people;
    await t.db.insert(marketingConsents).values({
      userId: gone.id,
      unsubscribedAt: new Date(t.clock.now()),
      bulkEmailId: id,
    });

    const key = crypto.randomUUID();
    const res = await sendInDoubt(id, key);
    expectStatus(res, 202);
    expect(res.json.body).toMatchObject({ id, status: "queued", finished_at: null, counts: { pending: 3, sent: 1 } });
    // The same request again (a retried click) is the same answer, not a second job.
    const again = await sendInDoubt(id, key);
    expectStatus(again, 202);
    expect(again.json.body).toEqual(res.json.body);
    const queued = await t.db.select().from(jobs).where(eq(jobs.kind, "bulkemails.send"));
    expect(queued.filter((j) => j.status === "queued")).toHaveLength(1);
    const entries = await t.db.select().from(auditLog)
      .where(and(eq(auditLog.action, "bulk-email.send-in-doubt"), eq(auditLog.actorId, admin.id)));
    expect(entries.map((e) => e.after)).toEqual([{ bulk_email: id, pending: 3 }]);

    const mailed = smtp.received.length;
    await runJobs();
    const received = smtp.perRecipient();
    expect(smtp.received.length - mailed).toBe(2);
    expect(received.get(first.email)).toBe(1);
    expect(received.get(second.email)).toBe(1);
    expect(received.get(gone.email)).toBeUndefined();
    expect(received.get(people[0].email)).toBeUndefined();
    const states = await statesOf(id);
    expect([first, second, gone].map((p) => states.get(p.email))).toEqual(["sent", "sent", "unsubscribed"]);
    const done = await admin.client.get(`console/bulkemails/${id}`);
    expect(done.json.body).toMatchObject({ status: "done", counts: { in_doubt: 0, sent: 3, unsubscribed: 1 } });

    // Nobody is in doubt any more: a second decision has nothing to act on.
    expectStatus(await sendInDoubt(id), 409);
  });

  test("while its job is still to run is left to that job, which sends them with the rest", async () => {
    const people = await insertCustomers(t.db, 3, {
      prefix: "doubt-working",
      createdAt: new Date("2018-03-03T12:00:00Z"),
    });
    const draft = await admin.client.post("console/bulkemails", {
      subject: "Still going",
      body: "Hello {{name}}",
      segment: { signed_up_from: "2018-03-03", signed_up_to: "2018-03-03" },
    });
    expectStatus(draft, 201);
    const id = draft.json.body.id as number;
    expectStatus(await admin.client.post(`console/bulkemails/${id}/send`, {}), 202);
    const [{ jobId }] = await t.db.select({ jobId: bulkEmails.jobId }).from(bulkEmails).where(eq(bulkEmails.id, id));
    // A crash of an earlier attempt left the first in doubt; the job is queued again, not run yet.
    await t.db.update(bulkEmailRecipients).set({ state: "in doubt" })
      .where(and(eq(bulkEmailRecipients.bulkEmailId, id), eq(bulkEmailRecipients.userId, people[0].id)));

    const res = await sendInDoubt(id);
    expectStatus(res, 202);
    expect(res.json.body).toMatchObject({ status: "queued", counts: { pending: 3, in_doubt: 0 } });
    const [after] = await t.db.select({ jobId: bulkEmails.jobId }).from(bulkEmails).where(eq(bulkEmails.id, id));
    expect(after.jobId).toBe(jobId);

    await runJobs();
    const received = smtp.perRecipient();
    expect(people.map((p) => received.get(p.email))).toEqual([1, 1, 1]);
    const done = await admin.client.get(`console/bulkemails/${id}`);
    expect(done.json.body).toMatchObject({ status: "done", counts: { sent: 3, in_doubt: 0, pending: 0 } });
  });
});
