import { expect, test } from "vitest";
import { migrateDatabase } from "../../db/client.ts";
import { databaseBefore } from "../helpers/migrated-before.ts";

/**
 * The migration that makes fee overrides per currency (db/migrations/*_fee_overrides_per_currency,
 * docs/decisions/025) keeps what an existing override meant: the number, for the currency the
 * customer's pricing plan is written in, with that currency's digits.
 */

test("each override becomes a fee in its plan's tier currency; empty and unreadable ones are dropped", async () => {
  // A database as it was before this migration.
  const { db, sql, dispose } = await databaseBefore(/_fee_overrides_per_currency$/);
  try {
    const at = Date.UTC(2026, 10, 1);
    await sql(
      `INSERT INTO pricing_plans (id, name, is_default, tier_currency, tiers, fees, created_at, updated_at)
       VALUES (1, 'Standard', 1, 'GBP', '[]', '{}', ?, ?), (2, 'Yen desk', 0, 'JPY', '[]', '{}', ?, ?),
              (3, 'Gulf', 0, 'KWD', '[]', '{}', ?, ?)`,
      [at, at, at, at, at, at],
    );
    const customer = async (id: number, regular: string | null, priority: string | null, plan?: number) => {
      await sql(
        `INSERT INTO users (id, username, level, type, override_transfer_fee, override_regular_transfer_fee,
           override_priority_transfer_fee, created_at) VALUES (?, ?, 'User', 'Personal', 1, ?, ?, ?)`,
        [id, `customer${id}@example.com`, regular, priority, at],
      );
      if (plan === undefined) return;
      await sql(`INSERT INTO accounts (id, account_ref, type, name, opened_at) VALUES (?, ?, 'Personal', 'X', ?)`, [
        id,
        `P${String(id).padStart(7, "0")}`,
        at,
      ]);
      await sql(`INSERT INTO account_members (account_id, user_id, role, created_at) VALUES (?, ?, 'owner', ?)`, [
        id,
        id,
        at,
      ]);
      if (plan !== 1) {
        await sql(`INSERT INTO account_plans (account_id, plan_id, assigned_at) VALUES (?, ?, ?)`, [id, plan, at]);
      }
    };
    await customer(1, "0.5", "2.00", 1); // on the default plan: GBP
    await customer(2, "2.50", null, 2); // a JPY plan: rounded up to whole yen, as it was charged
    await customer(3, "0.5", "1.25", 3); // a KWD plan: three digits
    await customer(4, "", "abc"); // no account yet; nothing that was ever charged
    await customer(5, null, "1.10"); // no account: the default plan's currency
    await customer(6, "0.29", null, 1); // 0.29 must stay 0.29, whatever floating point says

    await migrateDatabase(db);
    const { rows } = await sql(
      "SELECT id, override_regular_transfer_fee AS regular, override_priority_transfer_fee AS priority FROM users ORDER BY id",
    );
    expect(rows.map((row) => ({ ...row }))).toEqual([
      { id: 1, regular: '{"GBP":"0.50"}', priority: '{"GBP":"2.00"}' },
      { id: 2, regular: '{"JPY":"3"}', priority: null },
      { id: 3, regular: '{"KWD":"0.500"}', priority: '{"KWD":"1.250"}' },
      { id: 4, regular: null, priority: null },
      { id: 5, regular: null, priority: '{"GBP":"1.10"}' },
      { id: 6, regular: '{"GBP":"0.29"}', priority: null },
    ]);
  } finally {
    dispose();
  }
});
