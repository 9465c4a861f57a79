import { render } from "@react-email/render";
import { Semaphore } from "async-mutex";
import { eq } from "drizzle-orm";
import { createTransport, type SendMailOptions, type Transporter } from "nodemailer";
import type { Database } from "../../db/client.ts";
import { emails } from "../../db/schema.ts";
import type { Config } from "../config.ts";
import type { RenderedEmail } from "./templates/layout.tsx";
import { log } from "../log.ts";
import { HELD, HeldMessage, holdingPlugin } from "./held.ts";
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
 *
 * Every message comes from MAIL_FROM (a no-reply address as often as not) with Reply-To
 * SUPPORT_EMAIL: the emails say "write to us at ...", and a customer's Reply must reach the same
 * people, not bounce.
 */
/** The bulk emails' pool: as many connections as mails a job hands over at once (server/bulkemails/job.ts). */
export const POOL_CONNECTIONS = 10;

export interface Mailer {
  send(message: MailMessage): Promise<SendResult>;
  /**
   * Hands a wave of already rendered messages to SMTP up to the end of their data, without the
   * final dot of DATA: nobody has them yet. Answers once each is at the dot (or refused before it),
   * each to be delivered (the dot written, the server's answer) or aborted (closed without the dot:
   * the server discards it). For bulk emails (server/bulkemails/job.ts, decision 050 amended
   * 2026-11-28), which commit a wave between the two. Keeps no `emails` row and never throws for a
   * mail's sake (only for a wave larger than the pool): the recipients' rows are their record. Over a pool of connections: thousands of mails do not each
   * open one. Without SMTP_URL the messages are only "stored" (nobody receives them).
   */
  handOver(messages: DeliveredMail[]): Promise<HeldMail[]>;
}

/** A mail handed over up to its final dot (Mailer.handOver). */
export interface HeldMail {
  /** The answer it already got when it was refused before its dot (e.g. RCPT TO): it went to nobody. */
  early: Delivery | null;
  /** Writes its final dot (at once, in this turn) and answers what the server said. */
  deliver(): Promise<Delivery>;
  /** Closes its connection without the dot: the server discards it. */
  abort(): Promise<void>;
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
      replyTo?: string;
      headers?: Record<string, string>;
      textEncoding?: "base64" | "quoted-printable";
    },
  ): Promise<unknown>;
}

export interface MailerOptions {
  db: Database;
  config: Pick<Config, "smtpUrl" | "mailFrom" | "supportEmail" | "appEnv">;
  /** Overrides the transport built from config.smtpUrl. */
  transport?: MailTransport;
  /** Tests only: where the message as sent is kept (server/mail/outbox.ts). */
  outbox?: Outbox;
}

export function createMailer({ db, config, transport, outbox }: MailerOptions): Mailer {
  const smtp = transport ?? (config.smtpUrl ? smtpTransport(config.smtpUrl) : null);
  if (!smtp && config.appEnv === "production") {
    log.warn("mail: SMTP_URL is not set: emails are kept in the database only, nobody receives them.");
  }

  // Made on the first bulk email: a pool of connections kept open between its mails. The slots
  // count its free connections: a wave takes all it needs at once (see `handOver`).
  let bulkPool: { transport: Transporter; slots: Semaphore } | null = null;
  const failure = (e: unknown): Delivery => ({ status: "failed", error: e instanceof Error ? e.message : String(e) });
  /**
   * A bulk mail as the SMTP server gets it: replies go to support. Base64, not quoted-printable: the
   * same mail, a fraction of the encoding's time, which at hundreds of mails a second is most of
   * the sender's (docs/PERFORMANCE.md, "Bulk emails").
   */
  const bulkMail = ({ to, subject, html, text, headers }: DeliveredMail) => ({
    from: config.mailFrom,
    replyTo: config.supportEmail,
    to,
    subject,
    html,
    text,
    headers,
    textEncoding: "base64" as const,
  });

  /** One mail up to its dot over the pool; the slot it took is given back once it has its answer. */
  const holdOne = async (
    { transport, slots }: { transport: Transporter; slots: Semaphore },
    message: DeliveredMail,
  ): Promise<HeldMail> => {
    const held = new HeldMessage();
    const answer = transport.sendMail({ ...bulkMail(message), [HELD]: held } as SendMailOptions).then(
      (): Delivery => ({ status: "sent", error: null }),
      failure,
    );
    void answer.then(() => slots.release(1));
    const early = await Promise.race([held.atTheDot.then(() => null), answer]);
    return {
      early,
      deliver: () => {
        if (early) return Promise.resolve(early);
        held.release();
        return answer;
      },
      abort: async () => {
        held.abort("Not to be sent by this runner: its wave's commit did not mark it.");
        await answer;
      },
    };
  };

  return {
    async handOver(messages) {
      if (!config.smtpUrl && !transport) {
        return messages.map(() => ({
          early: null,
          deliver: () => Promise.resolve({ status: "stored", error: null }),
          abort: () => Promise.resolve(),
        }));
      }
      if (transport) {
        // A transport given by a test: no dot to hold back, the message goes when delivered.
        return messages.map((message) => ({
          early: null,
          deliver: () =>
            transport.sendMail(bulkMail(message)).then((): Delivery => ({ status: "sent", error: null }), failure),
          abort: () => Promise.resolve(),
        }));
      }
      if (messages.length > POOL_CONNECTIONS) {
        throw new RangeError(`A wave holds at most ${POOL_CONNECTIONS} mails, one a connection of the pool.`);
      }
      if (!bulkPool) {
        const transport = smtpTransport(config.smtpUrl!, true) as Transporter;
        holdingPlugin(transport);
        bulkPool = { transport, slots: new Semaphore(POOL_CONNECTIONS) };
      }
      // A held mail keeps its connection until its wave's commit: a wave waits until it has a
      // connection for each of its mails, so that two waves (two bulk emails in one runner) never
      // each hold half the pool waiting for the other half.
      const pool = bulkPool;
      await pool.slots.acquire(messages.length);
      return await Promise.all(messages.map((message) => holdOne(pool, message)));
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
          await smtp.sendMail({ from: config.mailFrom, replyTo: config.supportEmail, to, subject, html, text });
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
  // socketTimeout also bounds a held mail (handOver): one whose server goes silent before its dot
  // fails after 30 s without a byte, and its wave goes on without it.
  const timeouts = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };
  if (pool) {
    return createTransport({ url, pool: true, maxConnections: POOL_CONNECTIONS, maxMessages: Infinity, ...timeouts });
  }
  return createTransport({ url, ...timeouts });
}
