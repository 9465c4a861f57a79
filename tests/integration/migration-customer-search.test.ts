import { expect, test } from "vitest";
import { migrateDatabase } from "../../db/client.ts";
import { DERIVED_CHECK } from "../../db/derived.ts";
import { databaseBefore } from "../helpers/migrated-before.ts";

/**
 * A database that had customers and emails before migration *_customer_search (decision 052): once
 * migrated, each customer's kept step and balance flag are the ones their rows say, and the search
 * tables find them and their emails; migrating again changes nothing, and the triggers keep them
 * from the next write on.
 */

test("the customers and emails already there are filled in, once", async () => {
  // A database as it was before this migration.
  const { db, sql, dispose } = await databaseBefore(/_customer_search$/);
  try {
    const at = Date.UTC(2026, 10, 1);
    const customer = async (id: number, validated: boolean) =>
      await sql(
        `INSERT INTO users (id, username, level, type, validated, override_transfer_fee, created_at)
         VALUES (?, ?, 'User', 'Personal', ?, 0, ?)`,
        [id, `Customer${id}@Example.com`, validated ? 1 : 0, at],
      );
    const profile = (id: number, first: string, last: string) =>
      sql(`INSERT INTO profiles (user_id, type, data, created_at, updated_at) VALUES (?, 'Personal', ?, ?, ?)`, [
        id,
        JSON.stringify({ first, last, city: "London" }),
        at,
        at,
      ]);
    const identity = (id: number, status: string) =>
      sql(`INSERT INTO identity_checks (user_id, provider, status, updated_at) VALUES (?, 'sandbox', ?, ?)`, [
        id,
        status,
        at,
      ]);
    const account = async (id: number, balance: number) => {
      await sql(`INSERT INTO accounts (id, account_ref, type, name, opened_at) VALUES (?, ?, 'Personal', 'X', ?)`, [
        id,
        `P${String(id).padStart(8, "0")}`,
        at,
      ]);
      await sql(`INSERT INTO account_members (account_id, user_id, role, created_at) VALUES (?, ?, 'owner', ?)`, [
        id,
        id,
        at,
      ]);
      await sql(
        `INSERT INTO ledger_accounts (kind, account_id, currency, purpose, balance, created_at)
         VALUES ('customer', ?, 'EUR', 'held', ?, ?)`,
        [id, balance, at],
      );
    };
    await customer(1, false);
    await customer(2, true);
    await customer(3, true);
    await profile(3, "Wilhelmina", "Sprockett");
    await customer(4, true);
    await profile(4, "Ada", "Byron");
    await identity(4, "retry");
    await customer(5, true);
    await profile(5, "Grace", "Hopper");
    await identity(5, "approved");
    await customer(6, true);
    await profile(6, "Alan", "Turing");
    await identity(6, "approved");
    await account(6, 0);
    await customer(7, true);
    await profile(7, "Edsger", "Dijkstra");
    await identity(7, "approved");
    await account(7, 125);
    await sql(
      `INSERT INTO emails (user_id, "to", subject, template, html, text, status, created_at)
       VALUES (7, 'customer7@example.com', 'Your payment was sent', 't', '', '', 'sent', ?)`,
      [at],
    );

    await migrateDatabase(db);
    const kept = async () =>
      (await sql("SELECT id, step, has_balance FROM users ORDER BY id")).rows.map((r) => [
        r.id,
        r.step,
        Boolean(r.has_balance),
      ]);
    expect(await kept()).toEqual([
      [1, "verify", false],
      [2, "profile", false],
      [3, "identity", false],
      [4, "identity", false],
      [5, "review", false],
      [6, "open", false],
      [7, "open", true],
    ]);
    const found = async (q: string) =>
      (await sql("SELECT rowid AS id FROM customer_search WHERE customer_search MATCH ? ORDER BY rowid", [`"${q}"`]))
        .rows.map((r) => r.id);
    expect(await found("mina sprock")).toEqual([3]);
    expect(await found("customer7@exa")).toEqual([7]);
    expect(await found("p00000006")).toEqual([6]);
    expect(await found("london")).toEqual([]);
    expect((await sql(`SELECT rowid AS id FROM email_search WHERE email_search MATCH '"payment was"'`)).rows)
      .toHaveLength(1);

    // Again: nothing to do, nothing changed; and the triggers keep them from the next write on.
    await migrateDatabase(db);
    expect((await kept())[6]).toEqual([7, "open", true]);
    await sql("UPDATE users SET validated = 1 WHERE id = 1");
    await sql("UPDATE identity_checks SET status = 'approved' WHERE user_id = 4");
    expect((await kept()).slice(0, 4)).toEqual([
      [1, "profile", false],
      [2, "profile", false],
      [3, "identity", false],
      [4, "review", false],
    ]);
    expect((await sql(DERIVED_CHECK)).rows.filter((r) => r.kept_step !== r.step)).toEqual([]);
  } finally {
    dispose();
  }
});
