import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { bulkEmails } from "../../db/schema-bulkemails.ts";
import type { Tx } from "../../db/sql.ts";
import { type MergeValues, personalise, renderBulkEmail, type RenderedBulkEmail } from "./template.tsx";

/**
 * A bulk email's mails in the console's emails (decision 061): each mail handed to SMTP has an
 * `emails` row (recipient, subject as sent, status, the merge values it was filled with), and its
 * content is the bulk email's rendering, stored once for the send, filled with those values. So
 * the console shows what the customer received, byte for byte, without 10,000 copies of the HTML.
 */

/** The template name of a bulk email's mails in `emails`. */
export const BULK_MAIL_TEMPLATE = "bulk-email";

type Rendering = Pick<typeof bulkEmails.$inferSelect, "id" | "subject" | "body" | "renderedHtml" | "renderedText">;

/**
 * The template rendered for the send, merge fields in place: stored by the first job that sends
 * it (write once: a job resumed after a deploy fills the same rendering as the mails before).
 */
export async function renderingForSend(db: Database | Tx, email: Rendering): Promise<RenderedBulkEmail> {
  if (email.renderedHtml !== null && email.renderedText !== null) {
    return { subject: email.subject, html: email.renderedHtml, text: email.renderedText };
  }
  const rendered = await renderBulkEmail(email);
  await db.update(bulkEmails).set({ renderedHtml: rendered.html, renderedText: rendered.text })
    .where(and(eq(bulkEmails.id, email.id), isNull(bulkEmails.renderedHtml)));
  const [stored] = await db.select().from(bulkEmails).where(eq(bulkEmails.id, email.id));
  return {
    subject: email.subject,
    html: stored.renderedHtml ?? rendered.html,
    text: stored.renderedText ?? rendered.text,
  };
}

/** One mail of a bulk email as it was sent: the send's rendering filled with the values it was sent with. */
export async function bulkMailContent(
  db: Database | Tx,
  bulkEmailId: number,
  values: Record<string, string> | null,
): Promise<{ html: string; text: string }> {
  const [email] = await db.select().from(bulkEmails).where(eq(bulkEmails.id, bulkEmailId));
  if (!email) return { html: "", text: "" };
  // Stored by the job before any mail went; rendered here only for a row that predates that.
  const rendered = email.renderedHtml !== null && email.renderedText !== null
    ? { subject: email.subject, html: email.renderedHtml, text: email.renderedText }
    : await renderBulkEmail(email);
  // The customer's unsubscribe link works for whoever opens it, recorded as the customer's own
  // choice: the console's copy carries a placeholder that goes nowhere instead, the rest as sent
  // (decision 061).
  const { html, text } = personalise(rendered, { ...(values ?? {}), unsubscribe_url: LINK_MARK } as MergeValues);
  return {
    // The link goes nowhere and says why when pointed at; anywhere else the note stands in its place.
    html: html.replaceAll(`href="${LINK_MARK}"`, `href="#" title="${escapeHtml(UNSUBSCRIBE_NOT_SHOWN)}"`)
      .replaceAll(LINK_MARK, escapeHtml(UNSUBSCRIBE_NOT_SHOWN)),
    text: text.replaceAll(LINK_MARK, UNSUBSCRIBE_NOT_SHOWN),
  };
}

/** What the console's copy of a bulk mail shows where the customer's unsubscribe link was. */
export const UNSUBSCRIBE_NOT_SHOWN = "[unsubscribe link not shown: only the customer's copy has it]";
/** Stands for the link while the copy is filled: no merge value or markup contains it. */
const LINK_MARK = "unsubscribe-link-not-shown-f3c9";
const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" })[c]!);
