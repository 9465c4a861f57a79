import { render } from "@react-email/render";
import { eq } from "drizzle-orm";
import { createTransport } from "nodemailer";
import type { Database } from "../../db/client.ts";
import { emails } from "../../db/schema.ts";
import type { Config } from "../config.ts";
import type { RenderedEmail } from "./templates/layout.tsx";
import { log } from "../log.ts";
import type { Outbox } from "./outbox.ts";
import { keptCopy } from "./redact.ts";

/**
 * Outgoing mail. Every message is rendered from a React template to HTML and text, and every
 * message is kept in the `emails` table (the console's email screens read it), whatever happened:
 *
 * - with SMTP_URL: sent over SMTP, kept as `sent`; a refused or broken send is kept as `failed`
 *   with the error, logged as a warning, and NOT thrown: a sign-in or registration must not
 *   fail because the mail server is down (the user can ask for a new email, an operator sees the
 *   failure in the console).
 * - without: kept as `stored`. In development one line goes to the server log with the recipient,
 *   the subject and the template's hint (the link or code), so a developer can follow the flow
 *   without a mailbox. Links and codes are secrets: nothing of them is printed in production.
 *
 * A security email (server/mail/redact.ts, decision 057) goes out whole but is kept with its links
 * and codes replaced: the database never holds a live secret in an email body.
 */
export interface Mailer {
  send(message: MailMessage): Promise<SendResult>;
  /**
   * Hands one already rendered message to SMTP and answers what happened, keeping no `emails` row
   * and never throwing: for bulk emails (server/bulkemails/job.ts), whose recipients' rows are their
   * record, written a batch at a time. Over a pooled connection: thousands of mails do not each
   * open one. Without SMTP_URL the message is only "stored" (nobody receives it).
   */
  deliver(message: DeliveredMail): Promise<Delivery>;
}

export interface DeliveredMail {
  to: string;
  subject: string;
  html: string;
  text: string;
  headers?: Record<string, string>;
}

export interface Delivery {
  status: "sent" | "stored" | "failed";
  error: string | null;
}

export interface MailMessage {
  to: string;
  /** The user the message is about, when there is one (the console lists a user's emails). */
  userId?: number | null;
  /** The template's name, kept with the row: "email-validation", "second-factor-code"... */
  template: string;
  /** What a template function returned, e.g. `emailValidation({ link, code })`. */
  rendered: RenderedEmail;
  /** Printed in development instead of the template's own hint. */
  logHint?: string;
  /**
   * The HTML and text as already rendered once: a resend from the console sends exactly what the
   * customer was sent, not the template as it is today.
   */
  content?: { html: string; text: string };
  /**
   * The id of an `emails` row the caller already wrote (in its own transaction, with its audit
   * entry): the mailer sends it and records the delivery status on that row instead of adding one.
   */
  prepared?: number;
}

export interface SendResult {
  /** The id of the `emails` row. */
  id: number;
  status: "sent" | "stored" | "failed";
}

/** What the mailer needs of a transport: nodemailer's Transporter has it; a test can fake it. */
export interface MailTransport {
  sendMail(
    mail: {
      from: string;
      to: string;
      subject: string;
      html: string;
      text: string;
      headers?: Record<string, string>;
      textEncoding?: "base64" | "quoted-printable";
    },
  ): Promise<unknown>;
}

export interface MailerOptions {
  db: Database;
  config: Pick<Config, "smtpUrl" | "mailFrom" | "appEnv">;
  /** Overrides the transport built from config.smtpUrl. */
  transport?: MailTransport;
  /** Tests only: where the message as sent is kept (server/mail/outbox.ts). */
  outbox?: Outbox;
}

export function createMailer({ db, config, transport, outbox }: MailerOptions): Mailer {
  const smtp = transport ?? (config.smtpUrl ? smtpTransport(config.smtpUrl) : null);
  // Made on the first bulk email: a pool of connections kept open between its mails.
  let pooled: MailTransport | null = transport ?? null;
  if (!smtp && config.appEnv === "production") {
    log.warn("mail: SMTP_URL is not set: emails are kept in the database only, nobody receives them.");
  }

  return {
    async deliver({ to, subject, html, text, headers }) {
      if (!config.smtpUrl && !transport) return { status: "stored", error: null };
      pooled ??= smtpTransport(config.smtpUrl!, true);
      try {
        // Base64, not quoted-printable: the same mail, a fraction of the encoding's time, which at
        // hundreds of mails a second is most of the sender's (docs/PERFORMANCE.md, "Bulk emails").
        await pooled.sendMail({ from: config.mailFrom, to, subject, html, text, headers, textEncoding: "base64" });
        return { status: "sent", error: null };
      } catch (e) {
        return { status: "failed", error: e instanceof Error ? e.message : String(e) };
      }
    },
    async send({ to, userId = null, template, rendered, logHint = rendered.logHint, content, prepared }) {
      const { subject, element } = rendered;
      const [html, text] = content
        ? [content.html, content.text]
        : await Promise.all([render(element), render(element, { plainText: true })]);

      let status: SendResult["status"] = "stored";
      let error: string | null = null;
      if (smtp) {
        try {
          await smtp.sendMail({ from: config.mailFrom, to, subject, html, text });
          status = "sent";
        } catch (e) {
          status = "failed";
          error = e instanceof Error ? e.message : String(e);
        }
      }

      const kept = keptCopy(template, { html, text }, rendered.secrets);
      const [row] = prepared !== undefined
        ? await db.update(emails).set({ status, error }).where(eq(emails.id, prepared)).returning({ id: emails.id })
        : await db.insert(emails)
          .values({
            userId,
            to,
            subject,
            template,
            html: kept.html,
            text: kept.text,
            status,
            error,
            createdAt: new Date(),
          })
          .returning({ id: emails.id });
      outbox?.keep(row.id, { to, subject, template, html, text });

      if (status === "failed") {
        // The row id, not the address: enough to find the message in the console, no personal data in the log.
        log.warn(`mail: email ${row.id} (${template}) could not be sent: ${error}`, { email_id: row.id, template });
      } else if (status === "stored" && config.appEnv === "development") {
        // A hint for the developer at the terminal, in development only (it names the address,
        // so never in a deployment's log): plain text, not a log line.
        console.info(
          `[mail] to ${to}: "${subject}"${logHint ? ` ${logHint}` : ""} (kept in the database, SMTP_URL unset)`,
        );
      }
      return { id: row.id, status };
    },
  };
}

/**
 * nodemailer over SMTP_URL (smtp://user:pass@host:port, smtps:// for TLS). Timeouts are shorter
 * than nodemailer's minutes-long defaults because a request waits for the send.
 */
function smtpTransport(url: string, pool = false): MailTransport {
  const timeouts = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };
  if (pool) return createTransport({ url, pool: true, maxConnections: 10, maxMessages: Infinity, ...timeouts });
  return createTransport({ url, ...timeouts });
}
