/**
 * A person's in-app notifications (PAYMENTS.md "In-app notifications"): the ones not yet shown are
 * handed to the notification queue on the next pages they load (and marked delivered), as many per
 * page as it shows at once, and the latest are listed on request.
 */
import type { Database } from "../../db/client.ts";
import { NOTIFICATIONS_MAX_VISIBLE } from "../../lib/constants.ts";
import { rowsOf, run } from "../../db/sql.ts";
import type { Notification } from "../../lib/notification.ts";
import type { PaymentStatus } from "../../lib/payments/statuses.ts";
import { decidedNoticeText, noticeSupersededSql, noticeWithdrawnSql, stillMemberSql } from "../payments/notify.ts";

const COLORS: Record<string, Notification["color"]> = {
  payment_approval_needed: "warning",
  payment_approved: "success",
  payment_rejected: "error",
  payment_cancelled: "info",
  payment_sent: "info",
  payment_arrived: "success",
  payment_failed: "error",
  rate_alert_fired: "info",
};

/** The words of a notification's link (its toast, the dashboard's list), by kind (payment_*: its page). */
export const linkText = (kind: string) => kind === "rate_alert_fired" ? "See your rate alerts" : "Open the payment";

/**
 * The person's notifications not yet shown, for the page being rendered, marked delivered: at most
 * `room`, what the page shows at once besides its other notifications (NOTIFICATIONS_MAX_VISIBLE,
 * five, SPEC.md section 9). One handed beyond that would wait in that page's queue, in the browser,
 * and be lost when the person follows a link before it shows (decision 017: none may be lost): it
 * stays undelivered for the next page instead. Most pages find none: that costs one read of a
 * partial index, and nothing is written. `workedOn`: the account the page is about, whose notices need
 * not name it. A notice asking for an action its payment no longer needs
 * (approval, once it was decided), or about an account the person was removed from since it was
 * written (noticeWithdrawnSql), is marked delivered without being shown.
 */
export async function takeUndelivered(
  db: Database,
  userId: number,
  now: Date,
  room = NOTIFICATIONS_MAX_VISIBLE,
  workedOn?: number,
): Promise<Notification[]> {
  if (room <= 0) return [];
  const rows = await rowsOf<{
    id: number;
    kind: string;
    title: string;
    body: string;
    link: string | null;
    withdrawn: number;
    account_id: number | null;
    account_name: string | null;
    account_ref: string | null;
  }>(
    db,
    `SELECT n.id, n.kind, n.title, n.body, n.link, ${noticeWithdrawnSql("n")} AS withdrawn,
        n.account_id, a.name AS account_name, a.account_ref
       FROM notifications n LEFT JOIN accounts a ON a.id = n.account_id
      WHERE n.user_id = ? AND n.delivered_at IS NULL ORDER BY n.id LIMIT ?`,
    [userId, room],
  );
  if (!rows.length) return [];
  await run(
    db,
    `UPDATE notifications SET delivered_at = ? WHERE user_id = ? AND id IN (${rows.map(() => "?").join(", ")})`,
    [now.getTime(), userId, ...rows.map((r) => r.id)],
  );
  return rows.filter((r) => !r.withdrawn).map((r) => ({
    id: `notification-${r.id}`,
    title: r.title,
    // Shown under the header of the account worked on: one about another of the person's accounts
    // says whose it is, or "Payment approved" reads as that account's payment (decision 060).
    description: r.account_id !== null && r.account_id !== workedOn
      ? `On ${r.account_name} (${r.account_ref}): ${r.body}`
      : r.body,
    color: COLORS[r.kind] ?? "info",
    // A payment's link is its page, which switches to the payment's account when the session works
    // on another of the person's accounts (decision 060).
    ...(r.link ? { link: { href: r.link, text: linkText(r.kind) } } : {}),
  }));
}

/**
 * The person's latest notifications, newest first; with `accountId`, only those about that account
 * (the dashboard's "Recent notifications": the other accounts' are on their own dashboards). An
 * "approval needed" whose payment was decided since is listed as what it is now (decidedNoticeText):
 * what happened is kept, but nothing asks to approve a payment that no longer waits.
 */
export async function latestNotifications(db: Database, userId: number, limit = 20, accountId?: number) {
  const rows = await rowsOf<
    {
      id: number;
      kind: string;
      title: string;
      body: string;
      link: string | null;
      created_at: number;
      read_at: number | null;
      superseded: number;
      member: number;
      status: PaymentStatus | null;
      account_ref: string | null;
    }
  >(
    db,
    `SELECT n.id, n.kind, n.title, n.body, n.link, n.created_at, n.read_at, ${noticeSupersededSql("n")} AS superseded,
        ${stillMemberSql("n")} AS member, p.status, a.account_ref
       FROM notifications n LEFT JOIN payments p ON p.id = n.payment_id AND p.account_id = n.account_id
            LEFT JOIN accounts a ON a.id = n.account_id
      WHERE n.user_id = ?${accountId === undefined ? "" : " AND n.account_id = ?"} ORDER BY n.id DESC LIMIT ?`,
    accountId === undefined ? [userId, limit] : [userId, accountId, limit],
  );
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    // Someone removed from the account is not told what became of its payment since.
    ...(r.superseded
      ? decidedNoticeText(r.body, r.member ? r.status : null, !!r.member)
      : { title: r.title, body: r.body }),
    link: r.link,
    account_ref: r.account_ref,
    created_at: new Date(r.created_at).toISOString(),
    read: r.read_at !== null,
  }));
}

/** Marks the person's own notifications read (others' ids change nothing); answers how many changed. */
export async function markRead(db: Database, userId: number, ids: number[], now: Date): Promise<number> {
  if (!ids.length) return 0;
  return await run(
    db,
    `UPDATE notifications SET read_at = ?, delivered_at = COALESCE(delivered_at, ?)
     WHERE user_id = ? AND read_at IS NULL AND id IN (${ids.map(() => "?").join(", ")})`,
    [now.getTime(), now.getTime(), userId, ...ids],
  );
}
