/**
 * Bulk emails (issue 11 item 5, decision 050): a subject and a body written in the console, sent
 * to a segment of the customers by a background job (server/bulkemails/job.ts). Each recipient is
 * a row whose state the job claims before it hands the mail to SMTP, so that a job resumed after a
 * crash mails nobody twice. A customer who unsubscribes has a row in `marketing_consents`, which
 * every later bulk email honours (transactional mail is not affected).
 */
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { BULK_RECIPIENT_STATES, type BulkSegment } from "../lib/contracts/bulkemails.ts";
import { jobs } from "./schema-jobs.ts";
import { users } from "./schema.ts";

const time = (name: string) => integer(name, { mode: "timestamp_ms" });

export type BulkRecipientState = (typeof BULK_RECIPIENT_STATES)[number];

export const bulkEmails = sqliteTable("bulk_emails", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  subject: text("subject").notNull(),
  /** The administrator's text: paragraphs split by blank lines, with {{merge fields}}. */
  body: text("body").notNull(),
  /** Who it goes to: the filters of the segment, all customers when none is set. */
  segment: text("segment", { mode: "json" }).$type<BulkSegment>().notNull(),
  createdBy: integer("created_by").notNull().references(() => users.id),
  createdAt: time("created_at").notNull(),
  /** Set when an administrator sent it: its recipients are fixed then, and its job queued. */
  sentBy: integer("sent_by").references(() => users.id),
  sentAt: time("sent_at"),
  /** The throttle it is sent at, in mails per second (BULK_EMAIL_RATE when it was sent). */
  ratePerSecond: integer("rate_per_second"),
  jobId: integer("job_id").references(() => jobs.id, { onDelete: "set null" }),
  /** When the job had handled every recipient. */
  finishedAt: time("finished_at"),
  /**
   * The template as the job rendered it for the send, merge fields still in place (decision 061):
   * written once, so that every mail of the send, and the console's copy of each, is this filled in.
   */
  renderedHtml: text("rendered_html"),
  renderedText: text("rendered_text"),
});

export const bulkEmailRecipients = sqliteTable("bulk_email_recipients", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  bulkEmailId: integer("bulk_email_id").notNull().references(() => bulkEmails.id, { onDelete: "cascade" }),
  userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  /** The address when the email was sent (a later change of address does not change who was mailed). */
  email: text("email").notNull(),
  /**
   * pending, then sending (claimed: about to be handed to SMTP), then sent or failed; in doubt
   * when a crash came between the claim and the record of the result (never sent again);
   * unsubscribed when the customer had withdrawn their consent by the time their turn came.
   */
  state: text("state", { enum: BULK_RECIPIENT_STATES }).notNull(),
  error: text("error"),
  updatedAt: time("updated_at").notNull(),
}, (t) => [
  uniqueIndex("bulk_email_recipients_once").on(t.bulkEmailId, t.userId),
  index("bulk_email_recipients_state").on(t.bulkEmailId, t.state, t.id),
]);

/**
 * Marketing consent, recorded on the customer: a row means they unsubscribed from bulk emails
 * (when, and from which one). No row: they have not objected.
 */
export const marketingConsents = sqliteTable("marketing_consents", {
  userId: integer("user_id").primaryKey().references(() => users.id, { onDelete: "cascade" }),
  unsubscribedAt: time("unsubscribed_at").notNull(),
  /** The bulk email whose link they followed, when known. */
  bulkEmailId: integer("bulk_email_id").references(() => bulkEmails.id, { onDelete: "set null" }),
});
