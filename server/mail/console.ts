import { createElement } from "react";
import { desc, eq, sql } from "drizzle-orm";
import { likeContaining } from "../../db/sql.ts";
import type { Database } from "../../db/client.ts";
import { emails } from "../../db/schema.ts";
import { audit } from "../audit.ts";
import { bulkMailContent } from "../bulkemails/mails.ts";
import { Conflict, InvalidInput, NotFound } from "../errors.ts";
import { customerNamesByIds } from "../payments/people.ts";
import type { Mailer } from "./mailer.ts";
import { isSecurityTemplate, shownCopy } from "./redact.ts";

/**
 * The console's emails screens (issue 11, decision 045): every email the portal sent or kept, found
 * by recipient or subject, read as it was sent, and sent again (as a new email row, audited).
 */

export interface EmailSummary {
  id: number;
  to: string;
  subject: string;
  template: string;
  /** `in doubt`: a bulk email's mail handed to SMTP whose answer was never recorded (decisions 050, 061). */
  status: "sent" | "stored" | "failed" | "in doubt";
  user_id: number | null;
  /** The customer's display name (null when the email is about nobody, or they are gone). */
  customer_name: string | null;
  /** It carried a link or code that signs in: shown without it, never sent again (decision 057). */
  security: boolean;
  /** The bulk email this mail was one of (its page is /console/bulkemails/{id}); null for the others. */
  bulk_email_id: number | null;
  created_at: string;
}

export interface EmailDetail extends EmailSummary {
  html: string;
  text: string;
  error: string | null;
}

type Row = typeof emails.$inferSelect;

const summaryOf = (row: Pick<Row, keyof Row>, names: Map<number, string>): EmailSummary => ({
  id: row.id,
  to: row.to,
  subject: row.subject,
  template: row.template,
  status: row.status,
  user_id: row.userId,
  customer_name: row.userId === null ? null : names.get(row.userId) ?? null,
  security: isSecurityTemplate(row.template),
  bulk_email_id: row.bulkEmailId,
  created_at: row.createdAt.toISOString(),
});

/** Something@somewhere.tld: a whole email address. */
const WHOLE_ADDRESS = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The emails whose recipient or subject contains `q`, any case: on email_search (db/derived.ts,
 * decision 052), where a text of 3 characters or more is a phrase of trigrams found on the index;
 * a shorter one has no trigram and is a LIKE over the recipients and subjects, a scan of their
 * index (SQLite's LIKE ignores the case of ASCII letters).
 */
function anywhere(q: string) {
  if ([...q].length >= 3) {
    const phrase = `"${q.replaceAll('"', '""')}"`;
    return sql`${emails.id} IN (SELECT rowid FROM email_search WHERE email_search MATCH ${phrase})`;
  }
  // A subquery of ids, so that the scan reads the emails_to_subject index, not the emails' bodies.
  return sql`${emails.id} IN (SELECT id FROM emails
    WHERE "to" LIKE ${likeContaining(q)} ESCAPE '\\' OR subject LIKE ${likeContaining(q)} ESCAPE '\\')`;
}

/**
 * Newest first, a page at a time; `q` finds a part of the recipient's address or of the subject
 * (any case).
 */
export async function listEmails(db: Database, query: { q?: string; page: number; perPage: number }) {
  const q = query.q?.trim();
  // A whole address (what an operator pastes from a customer's message) is looked up on the
  // emails_to index first; a part of an address or a subject, or an address kept in other letter
  // cases, is found on the search table.
  let where = q ? anywhere(q) : undefined;
  if (q && WHOLE_ADDRESS.test(q)) {
    const exact = eq(emails.to, q.toLowerCase());
    const [found] = await db.select({ id: emails.id }).from(emails).where(exact).limit(1);
    if (found) where = exact;
  }
  const columns = {
    id: emails.id,
    to: emails.to,
    subject: emails.subject,
    template: emails.template,
    status: emails.status,
    userId: emails.userId,
    createdAt: emails.createdAt,
    bulkEmailId: emails.bulkEmailId,
  };
  const [count] = await db.select({ n: sql<number>`count(*)` }).from(emails).where(where);
  // Past the last match there is nothing to read (a search that matches nothing scans once, not twice).
  const rows = (count?.n ?? 0) > (query.page - 1) * query.perPage
    ? await db.select(columns).from(emails).where(where).orderBy(desc(emails.id))
      .limit(query.perPage).offset((query.page - 1) * query.perPage)
    : [];
  const names = await customerNamesByIds(db, rows.map((r) => r.userId));
  return {
    items: rows.map((r) => summaryOf(r as Row, names)),
    page: query.page,
    per_page: query.perPage,
    total: count?.n ?? 0,
  };
}

/**
 * One email as the console shows it: a security email without its links and codes (taken out when
 * it was kept; an email kept before that is cleaned here, decision 057).
 */
export async function emailById(db: Database, id: number): Promise<EmailDetail> {
  const [row] = await db.select().from(emails).where(eq(emails.id, id));
  if (!row) throw new NotFound("There is no email with this id.");
  // A bulk email's mail keeps the values it was filled with, not a copy of its HTML (decision 061).
  const { html, text } = row.bulkEmailId !== null
    ? await bulkMailContent(db, row.bulkEmailId, row.mergeValues)
    : shownCopy(row.template, row);
  return { ...summaryOf(row, await customerNamesByIds(db, [row.userId])), html, text, error: row.error };
}

/**
 * An administrator opens an email (its page, its HTML, the call): answered and recorded
 * (`email.view`), so that who read which customer's mail can be proved (decision 057).
 */
export async function viewEmail(
  db: Database,
  id: number,
  by: number,
  now: Date,
  part: "page" | "html" | "call",
): Promise<EmailDetail> {
  const email = await emailById(db, id);
  await audit(db, {
    actor: by,
    subject: email.user_id,
    action: "email.view",
    before: null,
    after: { id, to: email.to, subject: email.subject, part },
  }, now);
  return email;
}

/** What a security email's refusal to send again says (422). */
export const SECURITY_RESEND_REFUSED = "This email carried a link or code that signs the customer in, so the console " +
  "cannot send it again. Ask the customer to request a new one (Forgotten password, Send the code again, or a new " +
  "invitation).";

/**
 * What a bulk email's mail answers to "send again" (409, decision 061): marketing mail goes only to
 * those who still consent, and the bulk email's own page is where its sends are decided (its
 * in-doubt recipients are sent to from there), so one customer's copy is not mailed from here.
 */
export const bulkResendRefused = (bulkEmailId: number) =>
  `This mail is one of bulk email ${bulkEmailId}'s, so it cannot be sent again from here: ` +
  `a bulk email's mails are sent from its page, /console/bulkemails/${bulkEmailId} ` +
  "(where its recipients in doubt can be sent to, and those who unsubscribed are left out).";

/**
 * Sends an email again, exactly as it was (its HTML and text), to the same address: a new row with
 * its own delivery status. The row and its audit entry commit together first (no resend without its
 * record); the SMTP send follows, outside the transaction (a slow mail server holds no write lock),
 * and records its status on that row.
 */
export async function resendEmail(
  db: Database,
  mailer: Mailer,
  id: number,
  by: number,
  now: Date,
): Promise<EmailDetail> {
  const original = await emailById(db, id);
  if (original.security) throw new InvalidInput(SECURITY_RESEND_REFUSED);
  if (original.bulk_email_id !== null) throw new Conflict(bulkResendRefused(original.bulk_email_id));
  const newId = await db.transaction(async (tx) => {
    const [row] = await tx.insert(emails).values({
      userId: original.user_id,
      to: original.to,
      subject: original.subject,
      template: original.template,
      html: original.html,
      text: original.text,
      status: "stored",
      createdAt: now,
    }).returning({ id: emails.id });
    await audit(tx, {
      actor: by,
      subject: original.user_id,
      action: "email.resend",
      before: { id, to: original.to, subject: original.subject, status: original.status },
      after: { id: row.id, to: original.to, subject: original.subject },
    }, now);
    return row.id;
  });
  await mailer.send({
    to: original.to,
    userId: original.user_id,
    template: original.template,
    // The element is never rendered: `content` is what goes out.
    rendered: { subject: original.subject, element: createElement("div") },
    content: { html: original.html, text: original.text },
    prepared: newId,
    logHint: `(resent email ${id})`,
  });
  return await emailById(db, newId);
}
