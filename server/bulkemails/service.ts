import { and, count, desc, eq, getTableColumns, inArray, isNull, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { jobs } from "../../db/schema-jobs.ts";
import { bulkEmailRecipients, bulkEmails, type BulkRecipientState } from "../../db/schema-bulkemails.ts";
import { users } from "../../db/schema.ts";
import { partners } from "../../db/schema-partners.ts";
import type { Tx } from "../../db/sql.ts";
import type { BulkEmail, BulkSegment } from "../../lib/contracts/bulkemails.ts";
import { audit } from "../audit.ts";
import { Conflict, InvalidInput, NotFound } from "../errors.ts";
import { enqueue } from "../jobs/queue.ts";
import { bulkEmailJob } from "./job.ts";
import { describeSegment, segmentFrom, segmentWhere } from "./segment.ts";
import { mergeValues, recipientsData } from "./recipients.ts";
import { personalise, renderBulkEmail } from "./template.tsx";
import { unsubscribeUrl } from "./unsubscribe.ts";

/** Bulk emails (issue 11 item 5, decision 050): drafts, their preview, and their send. */

const iso = (date: Date | null) => date?.toISOString() ?? null;
const NO_EMAIL = "There is no such bulk email.";

export interface BulkEmailDraft {
  subject: string;
  body: string;
  segment: BulkSegment;
}

/** Saves a draft, audited; `store` keeps the answer with it (Idempotency-Key). */
export async function createBulkEmail(
  db: Database,
  adminId: number,
  draft: BulkEmailDraft,
  now: Date,
  store: (tx: Tx, answer: BulkEmail) => Promise<void>,
): Promise<BulkEmail> {
  const id = await db.transaction(async (tx) => {
    await checkPartner(tx, draft.segment);
    const [row] = await tx.insert(bulkEmails).values({ ...draft, createdBy: adminId, createdAt: now })
      .returning({ id: bulkEmails.id });
    await audit(tx, {
      actor: adminId,
      action: "bulk-email.create",
      before: null,
      after: { bulk_email: row.id, subject: draft.subject, segment: draft.segment },
    }, now);
    await store(tx, await bulkEmailView(tx, row.id));
    return row.id;
  });
  return await bulkEmailView(db, id);
}

const SENT_ALREADY = "This bulk email was sent already: write a new one to send it again.";

/** A partner that does not exist would make an empty segment look like a choice that worked. */
async function checkPartner(tx: Tx, segment: BulkSegment) {
  if (segment.partner_id === undefined) return;
  const [partner] = await tx.select({ id: partners.id }).from(partners).where(eq(partners.id, segment.partner_id));
  if (!partner) throw new InvalidInput("There is no such partner.", "segment.partner_id");
}

/** The draft `id` in `tx`: 404 unknown, 409 once sent (its recipients and record are fixed then). */
async function draftIn(tx: Tx, id: number, refusal: string) {
  const [email] = await tx.select().from(bulkEmails).where(eq(bulkEmails.id, id));
  if (!email) throw new NotFound(NO_EMAIL);
  if (email.sentAt) throw new Conflict(`This bulk email was sent already: ${refusal}`);
  return email;
}

/**
 * Corrects a draft (a typo, the wrong segment), audited with its subject and segment before and
 * after (not the body, which can be long) in the same transaction; 409 once sent. The update is
 * conditional on it still being a draft, so a send racing it cannot be followed by a change.
 */
export async function updateBulkEmail(
  db: Database,
  adminId: number,
  id: number,
  draft: BulkEmailDraft,
  now: Date,
  store: (tx: Tx, answer: BulkEmail) => Promise<void>,
): Promise<BulkEmail> {
  await db.transaction(async (tx) => {
    const before = await draftIn(tx, id, "write a new one to say something else.");
    await checkPartner(tx, draft.segment);
    const changed = await tx.update(bulkEmails)
      .set({ subject: draft.subject, body: draft.body, segment: draft.segment })
      .where(and(eq(bulkEmails.id, id), isNull(bulkEmails.sentAt))).returning({ id: bulkEmails.id });
    if (changed.length === 0) throw new Conflict(SENT_ALREADY);
    await audit(tx, {
      actor: adminId,
      action: "bulk-email.update",
      before: { bulk_email: id, subject: before.subject, segment: before.segment },
      after: { bulk_email: id, subject: draft.subject, segment: draft.segment },
    }, now);
    await store(tx, await bulkEmailView(tx, id));
  });
  return await bulkEmailView(db, id);
}

/** Deletes a draft, audited (its subject and segment are what remains of it); 409 once sent. */
export async function deleteBulkEmail(
  db: Database,
  adminId: number,
  id: number,
  now: Date,
  store: (tx: Tx, answer: { deleted: true }) => Promise<void>,
): Promise<{ deleted: true }> {
  const answer = { deleted: true } as const;
  await db.transaction(async (tx) => {
    const before = await draftIn(tx, id, "its record stays; write a new one to say something else.");
    const gone = await tx.delete(bulkEmails).where(and(eq(bulkEmails.id, id), isNull(bulkEmails.sentAt)))
      .returning({ id: bulkEmails.id });
    if (gone.length === 0) throw new Conflict(SENT_ALREADY);
    await audit(tx, {
      actor: adminId,
      action: "bulk-email.delete",
      before: { bulk_email: id, subject: before.subject, segment: before.segment },
      after: null,
    }, now);
    await store(tx, answer);
  });
  return answer;
}

/**
 * Sends a draft: fixes its recipients (the segment's customers now, in one statement) and queues
 * the job that mails them, with the audit entry, all in one transaction, so a bulk email is never
 * sent without its recipients or its record. 409 when sent already, or nobody is in the segment.
 */
export async function sendBulkEmail(
  db: Database,
  adminId: number,
  id: number,
  ratePerSecond: number,
  now: Date,
  store: (tx: Tx, answer: BulkEmail) => Promise<void>,
): Promise<BulkEmail> {
  await db.transaction(async (tx) => {
    const email = await draftIn(tx, id, "write a new one to send it again.");
    await tx.run(sql`INSERT INTO ${bulkEmailRecipients} (bulk_email_id, user_id, email, state, updated_at)
      SELECT ${id}, ${users.id}, ${users.username}, 'pending', ${now.getTime()}
      FROM ${segmentFrom} WHERE ${segmentWhere(email.segment)} ORDER BY ${users.id}`);
    const [{ n }] = await tx.select({ n: count() }).from(bulkEmailRecipients)
      .where(eq(bulkEmailRecipients.bulkEmailId, id));
    if (n === 0) {
      throw new Conflict("Nobody is in this segment (or everyone in it unsubscribed): there is nobody to send it to.");
    }
    const { id: jobId } = await enqueue(tx, bulkEmailJob, { bulkEmailId: id }, {
      createdBy: adminId,
      uniqueKey: `bulk-email:${id}`,
      now,
    });
    await tx.update(bulkEmails).set({ sentBy: adminId, sentAt: now, ratePerSecond, jobId })
      .where(eq(bulkEmails.id, id));
    await audit(tx, {
      actor: adminId,
      action: "bulk-email.send",
      before: { status: "draft" },
      after: { bulk_email: id, recipients: n, rate_per_second: ratePerSecond },
    }, now);
    await store(tx, await bulkEmailView(tx, id));
  });
  return await bulkEmailView(db, id);
}

type Counts = BulkEmail["counts"];
const noCounts = (): Counts => ({ total: 0, pending: 0, sending: 0, sent: 0, failed: 0, in_doubt: 0, unsubscribed: 0 });
const COUNT_OF: Record<BulkRecipientState, keyof Counts> = {
  pending: "pending",
  sending: "sending",
  sent: "sent",
  failed: "failed",
  "in doubt": "in_doubt",
  unsubscribed: "unsubscribed",
};

async function countsFor(db: Database | Tx, ids: number[]): Promise<Map<number, Counts>> {
  const rows = ids.length === 0 ? [] : await db.select({
    id: bulkEmailRecipients.bulkEmailId,
    state: bulkEmailRecipients.state,
    n: count(),
  }).from(bulkEmailRecipients).where(inArray(bulkEmailRecipients.bulkEmailId, ids))
    .groupBy(bulkEmailRecipients.bulkEmailId, bulkEmailRecipients.state);
  const byEmail = new Map(ids.map((id) => [id, noCounts()]));
  for (const row of rows) {
    const counts = byEmail.get(row.id)!;
    counts[COUNT_OF[row.state]] += row.n;
    counts.total += row.n;
  }
  return byEmail;
}

async function emailsWhere(db: Database | Tx, where: ReturnType<typeof eq> | undefined, limit: number, offset = 0) {
  const sender = sql<string | null>`(SELECT ${users.username} FROM ${users} WHERE ${users.id} = ${bulkEmails.sentBy})`;
  // Not the send's rendering (some KB each, decision 061): the console's views never show it.
  const { renderedHtml: _html, renderedText: _text, ...columns } = getTableColumns(bulkEmails);
  return await db.select({ email: columns, by: users.username, sentBy: sender, job: jobs }).from(bulkEmails)
    .innerJoin(users, eq(users.id, bulkEmails.createdBy))
    .leftJoin(jobs, eq(jobs.id, bulkEmails.jobId))
    .where(where).orderBy(desc(bulkEmails.id)).limit(limit).offset(offset);
}

type Found = Awaited<ReturnType<typeof emailsWhere>>[number];

function viewOf({ email, by, sentBy, job }: Found, counts: Counts): BulkEmail {
  const status: BulkEmail["status"] = !email.sentAt
    ? "draft"
    : email.finishedAt
    ? "done"
    : job?.status === "failed"
    ? "failed"
    : job?.status === "running"
    ? "sending"
    : "queued";
  return {
    id: email.id,
    subject: email.subject,
    body: email.body,
    segment: email.segment,
    segment_text: describeSegment(email.segment),
    status,
    created_at: email.createdAt.toISOString(),
    created_by: by,
    sent_at: iso(email.sentAt),
    sent_by: sentBy,
    finished_at: iso(email.finishedAt),
    rate_per_second: email.ratePerSecond,
    counts,
    // Handled: every recipient no longer waiting or being sent.
    progress: email.sentAt ? { done: counts.total - counts.pending - counts.sending, total: counts.total } : null,
    error: job?.status === "failed" ? job.error : null,
  };
}

export async function bulkEmailView(db: Database | Tx, id: number): Promise<BulkEmail> {
  const [found] = await emailsWhere(db, eq(bulkEmails.id, id), 1);
  if (!found) throw new NotFound(NO_EMAIL);
  return viewOf(found, (await countsFor(db, [id])).get(id)!);
}

/** The bulk emails, newest first, a page at a time. */
export async function listBulkEmails(db: Database, page: { page: number; per_page: number }) {
  const found = await emailsWhere(db, undefined, page.per_page, (page.page - 1) * page.per_page);
  const counts = await countsFor(db, found.map((f) => f.email.id));
  const [{ total }] = await db.select({ total: count() }).from(bulkEmails);
  return {
    items: found.map((f) => viewOf(f, counts.get(f.email.id)!)),
    page: page.page,
    per_page: page.per_page,
    total,
  };
}

/** How many customers a segment holds now (who would be mailed if it were sent now). */
export async function segmentSize(db: Database | Tx, segment: BulkSegment): Promise<number> {
  const [row] = await db.all<{ n: number }>(
    sql`SELECT count(*) AS n FROM ${segmentFrom} WHERE ${segmentWhere(segment)}`,
  );
  return Number(row?.n ?? 0);
}

/** A bulk email with a page of its recipients (of one state when asked), and its segment's size now. */
export async function bulkEmailWithRecipients(
  db: Database,
  id: number,
  query: { page: number; per_page: number; state?: BulkRecipientState },
) {
  const email = await bulkEmailView(db, id);
  const where = and(
    eq(bulkEmailRecipients.bulkEmailId, id),
    query.state ? eq(bulkEmailRecipients.state, query.state) : undefined,
  );
  const [rows, [{ total }], size] = await Promise.all([
    db.select().from(bulkEmailRecipients).where(where).orderBy(bulkEmailRecipients.id).limit(query.per_page)
      .offset((query.page - 1) * query.per_page),
    db.select({ total: count() }).from(bulkEmailRecipients).where(where),
    email.status === "draft" ? segmentSize(db, email.segment) : Promise.resolve(email.counts.total),
  ]);
  return {
    ...email,
    segment_size: size,
    recipients: {
      items: rows.map((row) => ({
        id: row.id,
        user_id: row.userId,
        email: row.email,
        state: row.state,
        error: row.error,
        updated_at: row.updatedAt.toISOString(),
      })),
      page: query.page,
      per_page: query.per_page,
      total,
    },
  };
}

/**
 * The email as one customer would get it: `userId`'s data, or the first of the segment's. Its
 * unsubscribe link is a sample that unsubscribes nobody: an administrator's click must not.
 */
export async function previewBulkEmail(db: Database, publicUrl: string, id: number, userId?: number) {
  const [email] = await db.select().from(bulkEmails).where(eq(bulkEmails.id, id));
  if (!email) throw new NotFound(NO_EMAIL);
  let chosen = userId;
  if (chosen === undefined) {
    const [first] = await db.all<{ id: number }>(
      sql`SELECT ${users.id} AS id FROM ${segmentFrom} WHERE ${
        segmentWhere(email.segment)
      } ORDER BY ${users.id} LIMIT 1`,
    );
    if (!first) throw new Conflict("Nobody is in this segment: give a customer's id to preview it with their data.");
    chosen = first.id;
  }
  const [customer] = await db.select({ level: users.level }).from(users).where(eq(users.id, chosen));
  if (customer?.level !== "User") throw new NotFound("There is no such customer.", "user_id");
  const recipient = (await recipientsData(db, [chosen])).get(chosen)!;
  const [inSegment] = await db.all<{ id: number }>(
    sql`SELECT ${users.id} AS id FROM ${segmentFrom} WHERE ${segmentWhere(email.segment)} AND ${users.id} = ${chosen}`,
  );
  const rendered = personalise(
    await renderBulkEmail(email),
    mergeValues(recipient, unsubscribeUrl(publicUrl, "preview")),
  );
  return { user_id: chosen, to: recipient.email, in_segment: !!inSegment, ...rendered };
}

/**
 * The decision a crash leaves to a person (decision 050): the recipients in doubt (their mail was
 * handed to SMTP, its answer never recorded) are put back as pending, to be sent by the job; some
 * may then get it twice, which the console says before it asks. The email's job sends them if it
 * is still at work (it finishes only when nobody is pending); otherwise a new job is queued. One
 * transaction with the audit entry; 409 when nobody is in doubt.
 */
export async function sendToInDoubt(
  db: Database,
  adminId: number,
  id: number,
  now: Date,
  store: (tx: Tx, answer: BulkEmail) => Promise<void>,
): Promise<BulkEmail> {
  await db.transaction(async (tx) => {
    const [found] = await tx.select({ email: bulkEmails, jobStatus: jobs.status }).from(bulkEmails)
      .leftJoin(jobs, eq(jobs.id, bulkEmails.jobId)).where(eq(bulkEmails.id, id));
    if (!found) throw new NotFound(NO_EMAIL);
    const again = await tx.update(bulkEmailRecipients).set({ state: "pending", updatedAt: now })
      .where(and(eq(bulkEmailRecipients.bulkEmailId, id), eq(bulkEmailRecipients.state, "in doubt")))
      .returning({ id: bulkEmailRecipients.id });
    if (again.length === 0) {
      throw new Conflict("Nobody is in doubt for this bulk email: every recipient's mail is accounted for.");
    }
    const { email, jobStatus } = found;
    // A job still at work sends them (its finish checks that nobody is pending, in the same commit).
    const working = !email.finishedAt && (jobStatus === "queued" || jobStatus === "running");
    if (!working) {
      const { id: jobId } = await enqueue(tx, bulkEmailJob, { bulkEmailId: id }, {
        createdBy: adminId,
        uniqueKey: `bulk-email:${id}:in-doubt:${crypto.randomUUID()}`,
        now,
      });
      await tx.update(bulkEmails).set({ jobId, finishedAt: null }).where(eq(bulkEmails.id, id));
    }
    await audit(tx, {
      actor: adminId,
      action: "bulk-email.send-in-doubt",
      before: { bulk_email: id, in_doubt: again.length },
      after: { bulk_email: id, pending: again.length },
    }, now);
    await store(tx, await bulkEmailView(tx, id));
  });
  return await bulkEmailView(db, id);
}
