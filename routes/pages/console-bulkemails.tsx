import type { Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { CONSOLE_GUARDS } from "../../lib/contracts/guards.ts";
import { guards } from "../../server/guards.ts";
import { idText } from "../../lib/contracts/common.ts";
import { MERGE_FIELDS } from "../../lib/contracts/bulkemails.ts";
import type { AppEnv } from "../../server/env.ts";
import { NotFound } from "../../server/errors.ts";
import {
  bulkEmailView,
  bulkEmailWithRecipients,
  listBulkEmails,
  previewBulkEmail,
} from "../../server/bulkemails/service.ts";
import { Conflict } from "../../server/errors.ts";
import { BAD_LINK, readUnsubscribeToken, unsubscribe } from "../../server/bulkemails/unsubscribe.ts";
import { listPartners } from "../../server/partners/partners.ts";
import { ConsoleBulkEmail, ConsoleBulkEmails, Unsubscribe } from "../islands.ts";
import { PageTitle } from "../layouts/parts.tsx";
import { ScrollBox } from "../../islands/ui/table.tsx";

/** The console's bulk emails and the public unsubscribe page (issue 11 item 5, decision 050). */

const MOMENT = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });
const STATUS_WORDS = { draft: "Draft", queued: "Waiting", sending: "Sending", done: "Sent", failed: "Failed" };

/** /console/bulkemails: a new bulk email, and the latest ones. */
export async function ConsoleBulkEmailsPage(c: Context<AppEnv>) {
  const [emails, partners] = await Promise.all([
    listBulkEmails(c.get("db"), { page: 1, per_page: 20 }),
    listPartners(c.get("db")),
  ]);
  return (
    <section className="flex flex-col gap-8">
      <div>
        <PageTitle lead="Write news for customers, choose who it goes to, preview it with a customer's data, then send it. Customers who unsubscribed are never sent one.">
          Bulk emails
        </PageTitle>
        <ConsoleBulkEmails mergeFields={MERGE_FIELDS} partners={partners.map(({ id, name }) => ({ id, name }))} />
      </div>
      <div>
        <h2 className="mb-2 text-xl font-semibold">Latest bulk emails</h2>
        {emails.items.length
          ? (
            <ScrollBox
              label="Latest bulk emails"
              className="rounded-xl border border-neutral-200 dark:border-neutral-800"
            >
              <table className="w-full text-left text-sm">
                <thead className="bg-neutral-50 dark:bg-neutral-900">
                  <tr>
                    {["Subject", "To", "Written", "Status", "Sent", "Recipients"].map((label) => (
                      <th key={label} scope="col" className="px-4 py-3 font-semibold">{label}</th>
                    ))}
                  </tr>
                </thead>
                <tbody className="divide-y divide-neutral-200 dark:divide-neutral-800">
                  {emails.items.map((email) => (
                    <tr key={email.id}>
                      <td className="px-4 py-3 break-words">
                        <a className="underline" href={`/console/bulkemails/${email.id}`}>{email.subject}</a>
                      </td>
                      <td className="px-4 py-3">{email.segment_text}</td>
                      <td className="px-4 py-3">{MOMENT.format(new Date(email.created_at))} UTC</td>
                      <td className="px-4 py-3">{STATUS_WORDS[email.status]}</td>
                      <td className="px-4 py-3 tabular-nums">{email.counts.sent}</td>
                      <td className="px-4 py-3 tabular-nums">{email.counts.total}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollBox>
          )
          : <p className="text-neutral-600 dark:text-neutral-300">No bulk email has been written yet.</p>}
      </div>
    </section>
  );
}

/** A bulk email's page exists only for one that exists. */
export async function bulkEmailExists(params: Record<string, string>, c: Context<AppEnv>) {
  const id = idText.safeParse(params.id);
  if (!id.success) return false;
  try {
    await bulkEmailView(c.get("db"), id.data);
    return true;
  } catch (error) {
    if (error instanceof NotFound) return false;
    throw error;
  }
}

/** /console/bulkemails/{id}: a draft's preview and send, or a sent one's progress and recipients. */
export async function ConsoleBulkEmailPage(c: Context<AppEnv>) {
  const id = idText.parse(c.req.param("id"));
  const [email, partners] = await Promise.all([
    bulkEmailWithRecipients(c.get("db"), id, { page: 1, per_page: 50 }),
    listPartners(c.get("db")),
  ]);
  return (
    <section>
      <PageTitle
        lead={`Written by ${email.created_by} on ${MOMENT.format(new Date(email.created_at))} UTC.${
          email.sent_at && email.sent_by
            ? ` Sent by ${email.sent_by} on ${
              MOMENT.format(new Date(email.sent_at))
            } UTC, at most ${email.rate_per_second} a second.`
            : ""
        }`}
      >
        {email.subject}
      </PageTitle>
      <ConsoleBulkEmail
        email={email}
        mergeFields={MERGE_FIELDS}
        partners={partners.map(({ id, name }) => ({ id, name }))}
      />
      <p className="mt-6">
        <a className="btn-ghost" href="/console/bulkemails">All bulk emails</a>
      </p>
    </section>
  );
}

/** /unsubscribe?token=: the link at the foot of every bulk email, open to anyone who has it. */
export async function UnsubscribePage(c: Context<AppEnv>) {
  const token = c.req.query("token") ?? "";
  const valid = !!token && await readUnsubscribeToken(c.get("services").secretBox, token) !== null;
  return (
    <section className="mx-auto max-w-md">
      <PageTitle lead="Our news by email">Unsubscribe</PageTitle>
      <div className="card">
        {valid ? <Unsubscribe token={token} /> : (
          <p>
            This link is not valid{token === "preview" ? ": it is the sample link of a preview" : ""}. Open the link
            from the email again, or write to {c.get("config").supportEmail}.
          </p>
        )}
      </div>
    </section>
  );
}

/**
 * POST /unsubscribe?token=: RFC 8058's one-click unsubscribe. Bulk mails carry
 * `List-Unsubscribe-Post: List-Unsubscribe=One-Click`, so a mail client unsubscribes the customer
 * with a POST to the link itself (the token in its query, the body `List-Unsubscribe=One-Click`),
 * without opening the page; GET stays the page with its button. Answered in plain text: nobody
 * reads it but the mail client.
 */
export function registerOneClickUnsubscribe(app: Hono<AppEnv>): void {
  app.post("/unsubscribe", async (c) => {
    const token = c.req.query("token") ?? "";
    const named = token ? await readUnsubscribeToken(c.get("services").secretBox, token) : null;
    if (!named) return c.text(BAD_LINK, 400);
    await unsubscribe(c.get("db"), c.get("services").secretBox, token, new Date(c.get("services").now()));
    return c.text("You are unsubscribed from our news by email.", 200);
  });
}

/**
 * A draft's preview as the HTML alone, for the frame of its page: served with its own
 * Content-Security-Policy (server/http/security.ts emailFrameAllowances) so the email's inline
 * styles apply, which the console's policy (inherited by a srcdoc frame) would block.
 */
export function registerBulkEmailFrame(app: Hono<AppEnv>): void {
  app.get("/console/bulkemails/:id/preview", guards(...CONSOLE_GUARDS), async (c) => {
    const id = idText.safeParse(c.req.param("id"));
    const userId = c.req.query("user_id") ? idText.safeParse(c.req.query("user_id")) : null;
    if (!id.success || (userId && !userId.success)) throw new HTTPException(404, { message: "Page not found" });
    try {
      const preview = await previewBulkEmail(c.get("db"), c.get("config").publicUrl, id.data, userId?.data);
      return c.html(preview.html);
    } catch (error) {
      if (error instanceof NotFound || error instanceof Conflict) {
        throw new HTTPException(404, { message: "Page not found" });
      }
      throw error;
    }
  });
}
