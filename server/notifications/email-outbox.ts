/**
 * The emails that follow in-app notifications. The `notifications` table is the outbox: a
 * notification is written in the same transaction as the event that causes it, and this sends the
 * ones not emailed yet, after the commit and off the request (rendering an email costs far more
 * than making a payment). So an email is never sent for something that did not happen, and one
 * whose event committed is sent even if the process stopped first (it may then go twice: sent,
 * then stopped before it was marked; never lost).
 *
 * Each person gets one email for all their notices not yet emailed: one notice is one email with
 * its own subject; a burst (an approver with fifty payments waiting) is one email listing them. A
 * round of emails is at least `spacingMs` after the last, so a busy portal spends a bounded share
 * of its time on mail however many payments it makes.
 */
import type { Database } from "../../db/client.ts";
import { rowOf, rowsOf, run } from "../../db/sql.ts";
import type { Mailer } from "../mail/mailer.ts";
import { log } from "../log.ts";
import { paymentNotice } from "../mail/templates/payment-notice.tsx";
import { noticeWithdrawnSql } from "../payments/notify.ts";
import { peopleByIds } from "../payments/people.ts";

/** At most this many notices are listed in one email; the rest are counted. */
const LISTED = 20;
/** People emailed per round; the next round takes the rest. */
const PEOPLE_PER_ROUND = 50;

/**
 * The template name a single notice's email is logged with: "payment-approved" for a payment's,
 * "rate-alert-fired" for a rate alert's (decision 038), the kind in dashes for any other.
 */
const templateOf = (kind: string) =>
  kind.startsWith("payment_")
    ? `payment-${kind.replace(/^payment_/, "").replaceAll("_", "-")}`
    : kind.replaceAll("_", "-");

export interface OutboxOptions {
  /** PUBLIC_URL: links in emails are absolute. */
  publicUrl: string;
  now: () => number;
  /** How often to look for notices nobody kicked about (another process wrote them), in ms. */
  pollMs?: number;
  /** The least time between two rounds that sent something, in ms. */
  spacingMs?: number;
}

interface Pending {
  id: number;
  kind: string;
  title: string;
  body: string;
  link: string | null;
  account_name: string | null;
  account_ref: string | null;
}

export class EmailOutbox {
  readonly #db: Database;
  readonly #mailer: Mailer;
  readonly #options: Required<OutboxOptions>;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<number> | null = null;
  #lastRound = 0;
  #started = false;

  constructor(db: Database, mailer: Mailer, options: OutboxOptions) {
    this.#db = db;
    this.#mailer = mailer;
    this.#options = { pollMs: 5_000, spacingMs: 1_000, ...options };
  }

  /** Sends what is waiting now and keeps looking (the server; tests call drain() instead). */
  start(): void {
    this.#started = true;
    this.#schedule(0);
  }

  stop(): void {
    this.#started = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Something was just written: send it soon (at once, unless a round was sent a moment ago). */
  kick(): void {
    if (!this.#started) return;
    const wait = Math.max(0, this.#lastRound + this.#options.spacingMs - Date.now());
    this.#schedule(wait);
  }

  #schedule(wait: number): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(async () => {
      this.#timer = undefined;
      let sent = 0;
      try {
        sent = await this.#once(async () => (await this.#pass()).sent);
      } catch (error) {
        log.error("mail: the notification emails could not be sent", { error });
      }
      // More may be waiting (a round takes PEOPLE_PER_ROUND people): come back after the spacing.
      if (this.#started) this.#schedule(sent > 0 ? this.#options.spacingMs : this.#options.pollMs);
    }, wait);
    // A waiting round must not keep the process alive.
    Deno.unrefTimer(this.#timer as unknown as number);
  }

  /** Sends every person their notices not emailed yet, until none is left; answers the emails sent. */
  drain(): Promise<number> {
    return this.#once(async () => {
      let sent = 0;
      for (;;) {
        const round = await this.#pass();
        sent += round.sent;
        if (round.people === 0) return sent;
      }
    });
  }

  /** One round at a time. */
  async #once(round: () => Promise<number>): Promise<number> {
    while (this.#running) await this.#running.catch(() => 0);
    this.#running = round().finally(() => (this.#running = null));
    return await this.#running;
  }

  /** One round: the people with notices waiting (up to PEOPLE_PER_ROUND), one email each. */
  async #pass(): Promise<{ people: number; sent: number }> {
    const people = await rowsOf<{ user_id: number }>(
      this.#db,
      "SELECT DISTINCT user_id FROM notifications WHERE emailed_at IS NULL LIMIT ?",
      [PEOPLE_PER_ROUND],
    );
    let sent = 0;
    for (const { user_id } of people) sent += await this.#emailPerson(user_id);
    if (people.length) this.#lastRound = Date.now();
    return { people: people.length, sent };
  }

  async #emailPerson(userId: number): Promise<number> {
    // A notice asking for an action its payment no longer needs (an approval, once the payment was
    // decided), or about an account the person was removed from since, is not emailed: it is marked
    // emailed with the rest, and left out of the count (noticeWithdrawnSql).
    const waiting = await rowOf<{ n: number; live: number | null; last: number | null }>(
      this.#db,
      `SELECT COUNT(*) AS n, SUM(NOT ${noticeWithdrawnSql("n")}) AS live, MAX(n.id) AS last
         FROM notifications n WHERE n.user_id = ? AND n.emailed_at IS NULL`,
      [userId],
    );
    if (!waiting?.n || waiting.last === null) return 0;
    const listed = waiting.live
      ? await rowsOf<Pending>(
        this.#db,
        `SELECT n.id, n.kind, n.title, n.body, n.link, a.name AS account_name, a.account_ref
           FROM notifications n LEFT JOIN accounts a ON a.id = n.account_id
          WHERE n.user_id = ? AND n.emailed_at IS NULL AND n.id <= ? AND NOT ${noticeWithdrawnSql("n")}
          ORDER BY n.id LIMIT ?`,
        [userId, waiting.last, LISTED],
      )
      : [];
    const live = Math.max(waiting.live ?? 0, listed.length);
    // The person greeted, not their company, as the account's users list names them.
    const person = (await peopleByIds(this.#db, [userId])).get(userId);
    const mailed = person !== undefined && listed.length > 0;
    if (person && listed.length) {
      const base = this.#options.publicUrl.replace(/\/+$/, "");
      const single = live === 1;
      await this.#mailer.send({
        to: person.email,
        userId,
        template: single ? templateOf(listed[0].kind) : "payment-updates",
        rendered: paymentNotice({
          name: person.name,
          items: listed.map((n) => ({
            title: n.title,
            body: n.body,
            href: n.link ? `${base}${n.link}` : null,
            // As the header names it (routes/layouts/User.tsx): the name, then the reference.
            account: n.account_ref ? `${n.account_name} ${n.account_ref}` : null,
          })),
          more: live - listed.length,
          portalUrl: `${base}/account`,
          actionLabel: single && listed[0].kind === "rate_alert_fired" ? "See your rate alerts" : undefined,
          about: listed.every((n) => n.kind.startsWith("payment_")) ? undefined : "your account",
        }),
      });
    }
    await run(
      this.#db,
      "UPDATE notifications SET emailed_at = ? WHERE user_id = ? AND emailed_at IS NULL AND id <= ?",
      [this.#options.now(), userId, waiting.last],
    );
    return mailed ? 1 : 0;
  }
}
