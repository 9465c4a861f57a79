import type { Context, Hono } from "hono";
import { CONSOLE_GUARDS } from "../../lib/contracts/guards.ts";
import { guards } from "../../server/guards.ts";
import { HTTPException } from "hono/http-exception";
import { listEmails as listEmailsCall } from "../../lib/contracts/console-alerts.ts";
import { alertAssignees, listAlerts } from "../../server/alerts/console.ts";
import { largePaymentThreshold } from "../../server/alerts/threshold.ts";
import type { AppEnv } from "../../server/env.ts";
import { NotFound } from "../../server/errors.ts";
import { listEmails, viewEmail } from "../../server/mail/console.ts";
import { ConsoleAlerts, EmailResend } from "../islands.ts";
import { PageTitle } from "../layouts/parts.tsx";
import { PageLinks } from "./page-links.tsx";
import { ScrollBox } from "../../islands/ui/table.tsx";

/** The console's alerts and emails screens (issue 11 items 3 and 4, decision 045). */

const CELL = "px-4 py-3";
const MUTED = "text-neutral-600 dark:text-neutral-300";
const when = (iso: string) => iso.slice(0, 16).replace("T", " ");

export async function ConsoleAlertsPage(c: Context<AppEnv>) {
  const db = c.get("db");
  const [alerts, admins, threshold] = await Promise.all([
    listAlerts(db, { status: "open" }),
    alertAssignees(db),
    largePaymentThreshold(db, c.get("config").alertPaymentGbp),
  ]);
  return (
    <section>
      <PageTitle lead="What needs an administrator: large payments, identity checks, unmatched receipts, failed payouts, compliance reviews and rate changes. Give each to someone, and resolve it with a note of what was done.">
        Alerts
      </PageTitle>
      <ConsoleAlerts alerts={alerts} admins={admins} me={c.get("user")!.id} threshold={threshold} />
    </section>
  );
}

const STATUS_WORDS = {
  sent: "Sent",
  stored: "Kept (no mail server)",
  failed: "Failed",
  "in doubt": "In doubt (handed to the mail server, no answer recorded)",
} as const;

/**
 * Every email the portal sent or kept, newest first, with a search by recipient or subject: a plain
 * GET form and links, no island (nothing here changes anything).
 */
export async function ConsoleEmailsPage(c: Context<AppEnv>) {
  const parsed = listEmailsCall.query.safeParse(c.req.query());
  const query = parsed.success ? parsed.data : { q: "", page: 1, per_page: 20 };
  const list = await listEmails(c.get("db"), { q: query.q, page: query.page, perPage: query.per_page });
  const pages = Math.max(1, Math.ceil(list.total / list.per_page));
  const link = (page: number) =>
    `/console/emails?${new URLSearchParams({ ...(query.q ? { q: query.q } : {}), page: String(page) })}`;
  return (
    <section className="flex flex-col gap-6">
      <PageTitle lead="Every email the portal sent, or kept when no mail server is set, with its content and delivery status.">
        Emails
      </PageTitle>
      <form method="get" action="/console/emails" role="search" className="flex flex-wrap items-end gap-3">
        <div className="flex min-w-64 flex-1 flex-col">
          <label htmlFor="email-search" className="mb-1 field-label">Recipient or subject</label>
          <input id="email-search" name="q" type="search" className="field-control" defaultValue={query.q} />
        </div>
        <button type="submit" className="btn-primary">Search</button>
      </form>
      {!parsed.success && <p role="alert" className="field-error">{parsed.error.issues[0]?.message}</p>}
      <p role="status" className={`text-sm ${MUTED}`}>
        {list.total === 1 ? "1 email" : `${list.total} emails`}
        {query.q ? ` for “${query.q}”` : ""}
      </p>
      <ScrollBox label="Emails" className="relative rounded-xl border border-neutral-200 dark:border-neutral-800">
        <table className="w-full text-left text-sm">
          <caption className="sr-only">Emails</caption>
          <thead className="bg-neutral-50 text-neutral-700 dark:bg-neutral-900 dark:text-neutral-300">
            <tr>
              <th scope="col" className={`${CELL} font-semibold`}>Sent</th>
              <th scope="col" className={`${CELL} font-semibold`}>To</th>
              <th scope="col" className={`${CELL} font-semibold`}>Subject</th>
              <th scope="col" className={`${CELL} font-semibold`}>Status</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-neutral-200 dark:divide-neutral-800">
            {list.items.length === 0 && (
              <tr>
                <td colSpan={4} className={`px-4 py-6 text-center ${MUTED}`}>No emails.</td>
              </tr>
            )}
            {list.items.map((e) => (
              <tr key={e.id} data-email={e.id}>
                <td className={`${CELL} whitespace-nowrap ${MUTED}`}>{when(e.created_at)}</td>
                <td className={CELL}>{e.to}</td>
                <td className={CELL}>
                  <a className="font-medium underline" href={`/console/emails/${e.id}`}>{e.subject}</a>
                  {e.bulk_email_id !== null && (
                    <>
                      {" "}
                      <a className={`text-xs underline ${MUTED}`} href={`/console/bulkemails/${e.bulk_email_id}`}>
                        Bulk email {e.bulk_email_id}
                      </a>
                    </>
                  )}
                </td>
                <td className={CELL}>{STATUS_WORDS[e.status]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
      <PageLinks page={list.page} pages={pages} link={link} />
    </section>
  );
}

/**
 * GET /console/emails/{id}/html: the email's HTML alone, for the frame of its page. Its own
 * Content-Security-Policy (server/http/security.ts emailFrameAllowances) lets its inline styles
 * apply, which the console's policy (inherited by a srcdoc frame) would block.
 */
export function registerEmailFrame(app: Hono<AppEnv>): void {
  app.get("/console/emails/:id/html", guards(...CONSOLE_GUARDS), async (c) => {
    const id = c.req.param("id");
    if (!/^[1-9][0-9]{0,15}$/.test(id)) throw new HTTPException(404, { message: "Page not found" });
    try {
      const email = await viewEmail(
        c.get("db"),
        Number(id),
        c.get("user")!.id,
        new Date(c.get("services").now()),
        "html",
      );
      return c.html(email.html);
    } catch (error) {
      if (error instanceof NotFound) throw new HTTPException(404, { message: "Page not found" });
      throw error;
    }
  });
}

/**
 * One email as it was sent: its HTML in a sandboxed frame (no scripts, no same origin: the HTML is
 * the portal's own template, but a sandbox costs nothing and holds whatever a template may carry),
 * the text version, the delivery status, and "Send again".
 */
export async function ConsoleEmailPage(c: Context<AppEnv>) {
  let email;
  try {
    email = await viewEmail(
      c.get("db"),
      Number(c.req.param("id")),
      c.get("user")!.id,
      new Date(c.get("services").now()),
      "page",
    );
  } catch (error) {
    if (error instanceof NotFound) throw new HTTPException(404, { message: "Page not found" });
    throw error;
  }
  return (
    <section className="flex flex-col gap-6">
      <PageTitle lead={`To ${email.to}, ${when(email.created_at)} UTC.`}>{email.subject}</PageTitle>
      <dl className="grid grid-cols-[max-content_1fr] gap-x-6 gap-y-2 text-sm">
        <dt className={MUTED}>Delivery</dt>
        <dd data-status={email.status}>{STATUS_WORDS[email.status]}{email.error ? `: ${email.error}` : ""}</dd>
        <dt className={MUTED}>Template</dt>
        <dd>{email.template}</dd>
        {email.bulk_email_id !== null && (
          <>
            <dt className={MUTED}>Bulk email</dt>
            <dd>
              <a className="underline" href={`/console/bulkemails/${email.bulk_email_id}`} data-bulk-email>
                Bulk email {email.bulk_email_id}
              </a>{" "}
              (this customer's mail of it, with the values it was sent with)
            </dd>
          </>
        )}
        {email.user_id !== null && (
          <>
            <dt className={MUTED}>Customer</dt>
            <dd>
              <a className="underline" href={`/console/users/${email.user_id}`}>
                {email.customer_name ?? "A former customer"}
              </a>
            </dd>
          </>
        )}
      </dl>
      {email.security
        ? (
          <p data-security-email className={MUTED}>
            A security email: its links and codes are not kept (they sign the customer in), and it cannot be sent again.
            Ask the customer to request a new one.
          </p>
        )
        : email.bulk_email_id !== null
        ? (
          <p data-bulk-mail className={MUTED}>
            One customer's mail of a bulk email: it is not sent again from here. Its sends are decided on{" "}
            <a className="underline" href={`/console/bulkemails/${email.bulk_email_id}`}>
              the bulk email's page
            </a>, which leaves out those who unsubscribed. Its unsubscribe link is shown as a placeholder that goes
            nowhere: the customer's own link would unsubscribe them, as if they had chosen it.
          </p>
        )
        : <EmailResend id={email.id} to={email.to} />}
      <iframe
        title={`The email “${email.subject}”`}
        sandbox=""
        src={`/console/emails/${email.id}/html`}
        className="h-[32rem] w-full rounded-xl border border-neutral-200 bg-white dark:border-neutral-800"
      />
      <details>
        <summary className="cursor-pointer font-medium">Text version</summary>
        <pre className="mt-2 overflow-x-auto text-sm whitespace-pre-wrap">{email.text}</pre>
      </details>
      <p>
        <a className="underline" href="/console/emails">All emails</a>
      </p>
    </section>
  );
}
