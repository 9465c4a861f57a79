import { expect, test } from "vitest";
import { migrateDatabase } from "../../db/client.ts";
import { databaseBefore } from "../helpers/migrated-before.ts";

/**
 * From migration 0032 a notice about a payment names its payment in `payment_id` (what the email
 * outbox and the notification queue ask when they drop an approval already decided); the notices
 * written before named it only in their link. Migration 0033 gives each the payment its link names,
 * when that payment is on the notice's account, and no payment to any other notice.
 */
test("a payment's notice written before names the payment its link leads to; other notices name none", async () => {
  const { db, sql, dispose } = await databaseBefore(/^0032_notices_payment$/);
  try {
    const at = Date.UTC(2026, 10, 27);
    await sql(`INSERT INTO users (id, username, created_at) VALUES (1, 'ada@example.com', ?)`, [at]);
    for (const id of [1, 2]) {
      await sql(`INSERT INTO accounts (id, account_ref, type, name, opened_at) VALUES (?, ?, 'Business', ?, ?)`, [
        id,
        `REF${id}`,
        `Account ${id}`,
        at,
      ]);
      await sql(
        `INSERT INTO recipients (id, account_id, name, type, currency, country, details, details_changed_at,
           created_by, created_at, updated_at) VALUES (?, ?, 'Jean Dupont', 'person', 'EUR', 'FR', '{}', ?, 1, ?, ?)`,
        [id, id, at, at, at],
      );
      await sql(
        `INSERT INTO payment_quotes (id, account_id, user_id, recipient_id, sell_currency, buy_currency, sell_minor,
           buy_minor, fee_minor, mid_rate, rate, bps, priority, rail, expected_arrival, expires_at, created_at)
         VALUES (?, ?, 1, ?, 'GBP', 'EUR', 1000, 1100, 50, '1.2', '1.19', 100, 0, 'sepa', ?, ?, ?)`,
        [`pq${id}`, id, id, at, at, at],
      );
      await sql(
        `INSERT INTO payments (id, account_id, recipient_id, recipient, quote_id, sell_currency, sell_minor,
           buy_currency, buy_minor, fee_minor, mid_rate, rate, bps, priority, rail, reference, status,
           expected_arrival, created_by, created_at, updated_at, hold_transfer_id)
         VALUES (?, ?, ?, '{}', ?, 'GBP', 1000, 'EUR', 1100, 50, '1.2', '1.19', 100, 0, 'sepa', 'Invoice',
           'pending_approval', ?, 1, ?, ?, 0)`,
        [id, id, id, `pq${id}`, at, at, at],
      );
    }
    const notices: [kind: string, account: number, link: string | null][] = [
      ["payment_approval_needed", 1, "/account/pendingpayments/1"],
      ["payment_approved", 1, "/account/pendingpayments/1"],
      ["payment_failed", 2, "/account/pendingpayments/2"],
      // Another account's payment, one that does not exist, a link of another shape, and a rate alert.
      ["payment_sent", 1, "/account/pendingpayments/2"],
      ["payment_sent", 1, "/account/pendingpayments/99"],
      ["payment_arrived", 1, "/account/pendingpayments/1?from=email"],
      ["payment_rejected", 1, null],
      ["rate_alert_fired", 1, "/account/ratealerts"],
    ];
    for (const [kind, account, link] of notices) {
      await sql(
        `INSERT INTO notifications (user_id, account_id, kind, title, body, link, created_at)
         VALUES (1, ?, ?, 'Title', 'Body', ?, ?)`,
        [account, kind, link, at],
      );
    }

    await migrateDatabase(db);
    const { rows } = await sql("SELECT kind, link, payment_id FROM notifications ORDER BY id");
    expect(rows.map((r) => r.payment_id)).toEqual([1, 1, 2, null, null, null, null, null]);
    expect(rows.map((r) => r.link), "the links are where the notices lead, as they were")
      .toEqual(notices.map(([, , link]) => link));
  } finally {
    dispose();
  }
});
