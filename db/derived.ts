import type { Client, InStatement } from "@libsql/client";

/**
 * What the database keeps for the console's searches (decision 052, docs/PERFORMANCE.md): derived
 * from the tables the code writes, by triggers, so that no write anywhere (the onboarding calls, the
 * ledger, an invitation, a test fixture, a customer migration) can forget them.
 *
 * - `users.step` and `users.has_balance`: the onboarding step and whether an account the customer
 *   belongs to holds money, kept in the same transaction as the write that changes them.
 * - `customer_search_text`: one row per customer (id = users.id) with their email, name and account
 *   references, lower case; and `customer_search`, an FTS5 index of it (external content) with the
 *   trigram tokenizer: a phrase query finds any part of a text of 3 characters or more on the
 *   index, as the LIKE '%…%' it replaces did by scanning. A text of 1 or 2 characters has no
 *   trigram: it is a LIKE over customer_search_text, a small table (no JSON to read, no joins).
 * - `email_search`: the same index over the emails' recipients and subjects, whose content is the
 *   emails table itself.
 *
 * Not in a migration: drizzle-kit generates the migrations from db/schema*.ts, which can say
 * neither a virtual table nor a trigger. `ensureDerived` runs after the migrations, each start (one
 * read when everything is there): when a trigger is missing or its text differs from the one here,
 * it drops them all, creates them again and fills what they keep from the rows already there, in
 * one write transaction, so a database that had customers before is right from then on, and a
 * change to a trigger here is applied at the next start. Running it again, or two instances at
 * once, changes nothing (the backfill writes the values the triggers would).
 */

/**
 * The onboarding step of the customer `users.id = <id>`: the first not done in the order /auth
 * checks them (their email, their profile, their identity, the compliance review, open). An
 * application the review rejected is 'rejected' from its rejection (which needs only a profile)
 * until a review that overrides it opens the account: it waits for nothing, and the console's
 * "waiting for the review" must not list it among those that do.
 */
const STEP = `CASE
    WHEN users.validated = 0 THEN 'verify'
    WHEN NOT EXISTS (SELECT 1 FROM profiles WHERE profiles.user_id = users.id) THEN 'profile'
    WHEN EXISTS (SELECT 1 FROM profiles WHERE profiles.user_id = users.id AND profiles.rejected_at IS NOT NULL)
      AND NOT EXISTS (SELECT 1 FROM account_members WHERE account_members.user_id = users.id) THEN 'rejected'
    WHEN coalesce((SELECT status FROM identity_checks WHERE identity_checks.user_id = users.id), '') <> 'approved'
      THEN 'identity'
    WHEN NOT EXISTS (SELECT 1 FROM account_members WHERE account_members.user_id = users.id) THEN 'review'
    ELSE 'open' END`;

/** Money in any currency on an account the customer belongs to (spendable or held for a payment). */
const HAS_BALANCE = `EXISTS (SELECT 1 FROM account_members
    INNER JOIN ledger_accounts ON ledger_accounts.account_id = account_members.account_id
    WHERE account_members.user_id = users.id AND ledger_accounts.kind = 'customer' AND ledger_accounts.balance > 0)`;

/** Sets both for the users `which` selects (an SQL condition on `users`). */
const refreshUsers = (which: string) => `UPDATE users SET step = ${STEP}, has_balance = ${HAS_BALANCE} WHERE ${which};`;

/**
 * A customer's name as the search reads it: a business's name, or a person's first and last name,
 * each read from its own field of the profile (never the whole stored text, where "true" or
 * "London" would match everyone). A migrated customer who has saved no profile yet (decision 049)
 * is found by the names the migration's file gave (company_name, or first_name and last_name), the
 * ones their profile form starts from; their profile, once saved, has the last word.
 */
const NAME = `coalesce((SELECT lower(CASE profiles.type WHEN 'Business'
    THEN coalesce(json_extract(profiles.data, '$.name'), '')
    ELSE trim(coalesce(json_extract(profiles.data, '$.first'), '') || ' ' || coalesce(json_extract(profiles.data, '$.last'), ''))
    END) FROM profiles WHERE profiles.user_id = users.id),
  (SELECT lower(CASE json_extract(migration_rows.data, '$.type') WHEN 'Business'
    THEN coalesce(json_extract(migration_rows.data, '$.company_name'), '')
    ELSE trim(coalesce(json_extract(migration_rows.data, '$.first_name'), '') || ' ' ||
      coalesce(json_extract(migration_rows.data, '$.last_name'), ''))
    END) FROM migration_rows WHERE migration_rows.user_id = users.id ORDER BY migration_rows.id DESC LIMIT 1))`;

/**
 * The references of the accounts the customer belongs to, one a line: a search text never holds a
 * line break (the list collapses white space), so no match spans two references.
 */
const REFS = `(SELECT group_concat(lower(accounts.account_ref), char(10)) FROM account_members
    INNER JOIN accounts ON accounts.id = account_members.account_id WHERE account_members.user_id = users.id)`;

/** Writes again the search row of the users `which` selects (and drops it for an administrator). */
const refreshSearch = (which: string) =>
  `DELETE FROM customer_search_text WHERE id IN (SELECT id FROM users WHERE ${which});
  INSERT INTO customer_search_text (id, email, name, refs)
    SELECT users.id, lower(users.username), coalesce(${NAME}, ''), coalesce(${REFS}, '')
    FROM users WHERE (${which}) AND users.level = 'User';`;

const MEMBERS_OF = (account: string) =>
  `users.id IN (SELECT user_id FROM account_members WHERE account_id = ${account})`;

/** name → body of each trigger; every one ends BEGIN … END. */
const TRIGGERS: Record<string, string> = {
  users_derived_insert: `AFTER INSERT ON users BEGIN
    ${refreshUsers("users.id = NEW.id")} ${refreshSearch("users.id = NEW.id")} END`,
  // Writes step and has_balance, not validated: it does not fire itself again.
  users_derived_validated: `AFTER UPDATE OF validated ON users BEGIN ${refreshUsers("users.id = NEW.id")} END`,
  users_search_update: `AFTER UPDATE OF username, level ON users BEGIN ${refreshSearch("users.id = NEW.id")} END`,
  users_search_delete: `AFTER DELETE ON users BEGIN DELETE FROM customer_search_text WHERE id = OLD.id; END`,
  profiles_derived_insert: `AFTER INSERT ON profiles BEGIN
    ${refreshUsers("users.id = NEW.user_id")} ${refreshSearch("users.id = NEW.user_id")} END`,
  profiles_derived_update: `AFTER UPDATE OF data, type ON profiles BEGIN ${
    refreshSearch("users.id = NEW.user_id")
  } END`,
  // A rejection, and the review that overrides it (which clears it before the account opens).
  profiles_derived_rejected: `AFTER UPDATE OF rejected_at ON profiles BEGIN ${
    refreshUsers("users.id = NEW.user_id")
  } END`,
  profiles_derived_delete: `AFTER DELETE ON profiles BEGIN
    ${refreshUsers("users.id = OLD.user_id")} ${refreshSearch("users.id = OLD.user_id")} END`,
  identity_derived_insert: `AFTER INSERT ON identity_checks BEGIN ${refreshUsers("users.id = NEW.user_id")} END`,
  identity_derived_update: `AFTER UPDATE OF status ON identity_checks BEGIN ${
    refreshUsers("users.id = NEW.user_id")
  } END`,
  identity_derived_delete: `AFTER DELETE ON identity_checks BEGIN ${refreshUsers("users.id = OLD.user_id")} END`,
  members_derived_insert: `AFTER INSERT ON account_members BEGIN
    ${refreshUsers("users.id = NEW.user_id")} ${refreshSearch("users.id = NEW.user_id")} END`,
  members_derived_delete: `AFTER DELETE ON account_members BEGIN
    ${refreshUsers("users.id = OLD.user_id")} ${refreshSearch("users.id = OLD.user_id")} END`,
  accounts_search_ref: `AFTER UPDATE OF account_ref ON accounts BEGIN ${refreshSearch(MEMBERS_OF("NEW.id"))} END`,
  // A migration's job creates the customer, then links its line to them: their name is on the line.
  migration_search_customer: `AFTER UPDATE OF user_id ON migration_rows WHEN NEW.user_id IS NOT NULL BEGIN ${
    refreshSearch("users.id = NEW.user_id")
  } END`,
  // The ledger: only when a customer balance crosses zero, in the transaction of its postings (its
  // accounts are never deleted: ledger_accounts_no_delete, migration 0003).
  ledger_derived_balance:
    `AFTER UPDATE OF balance ON ledger_accounts WHEN NEW.kind = 'customer' AND (OLD.balance > 0) <> (NEW.balance > 0)
    BEGIN ${refreshUsers(MEMBERS_OF("NEW.account_id"))} END`,
  ledger_derived_insert: `AFTER INSERT ON ledger_accounts WHEN NEW.kind = 'customer' AND NEW.balance > 0
    BEGIN ${refreshUsers(MEMBERS_OF("NEW.account_id"))} END`,
  // The FTS5 indexes of external content: told of each row added and each row taken away.
  search_text_insert: `AFTER INSERT ON customer_search_text BEGIN
    INSERT INTO customer_search (rowid, email, name, refs) VALUES (NEW.id, NEW.email, NEW.name, NEW.refs); END`,
  search_text_delete: `AFTER DELETE ON customer_search_text BEGIN
    INSERT INTO customer_search (customer_search, rowid, email, name, refs)
      VALUES ('delete', OLD.id, OLD.email, OLD.name, OLD.refs); END`,
  search_text_update: `AFTER UPDATE ON customer_search_text BEGIN
    INSERT INTO customer_search (customer_search, rowid, email, name, refs)
      VALUES ('delete', OLD.id, OLD.email, OLD.name, OLD.refs);
    INSERT INTO customer_search (rowid, email, name, refs) VALUES (NEW.id, NEW.email, NEW.name, NEW.refs); END`,
  emails_search_insert: `AFTER INSERT ON emails BEGIN
    INSERT INTO email_search (rowid, "to", subject) VALUES (NEW.id, NEW."to", NEW.subject); END`,
  emails_search_delete: `AFTER DELETE ON emails BEGIN
    INSERT INTO email_search (email_search, rowid, "to", subject) VALUES ('delete', OLD.id, OLD."to", OLD.subject); END`,
  emails_search_update: `AFTER UPDATE OF "to", subject ON emails BEGIN
    INSERT INTO email_search (email_search, rowid, "to", subject) VALUES ('delete', OLD.id, OLD."to", OLD.subject);
    INSERT INTO email_search (rowid, "to", subject) VALUES (NEW.id, NEW."to", NEW.subject); END`,
};

const createTrigger = (name: string) => `CREATE TRIGGER ${name} ${TRIGGERS[name]}`;

/**
 * Creates the search tables, and the triggers when one is missing or differs, and then fills what
 * they keep from the rows already there (see above). Called after the migrations (db/client.ts
 * migrateDatabase).
 */
export async function ensureDerived(client: Client): Promise<void> {
  const names = Object.keys(TRIGGERS);
  const stored = new Map(
    (await client.execute(
      `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN (${
        names.map((n) => `'${n}'`).join(", ")
      })`,
    )).rows.map((r) => [String(r.name), String(r.sql)]),
  );
  if (names.every((name) => stored.get(name) === createTrigger(name))) return;
  const statements: InStatement[] = [
    `CREATE TABLE IF NOT EXISTS customer_search_text (id INTEGER PRIMARY KEY, email TEXT NOT NULL, name TEXT NOT NULL,
      refs TEXT NOT NULL)`,
    `CREATE VIRTUAL TABLE IF NOT EXISTS customer_search USING fts5(email, name, refs,
      content = 'customer_search_text', content_rowid = 'id', tokenize = 'trigram')`,
    `CREATE VIRTUAL TABLE IF NOT EXISTS email_search USING fts5("to", subject,
      content = 'emails', content_rowid = 'id', tokenize = 'trigram')`,
    ...names.map((name) => `DROP TRIGGER IF EXISTS ${name}`),
    // The backfill, in the same transaction: what the triggers would have written for every row
    // already there; the indexes rebuilt from their content whole, whatever they held. Then the
    // triggers, which keep it from the next write on.
    refreshUsers("1"),
    `DELETE FROM customer_search_text`,
    `INSERT INTO customer_search_text (id, email, name, refs)
      SELECT users.id, lower(users.username), coalesce(${NAME}, ''), coalesce(${REFS}, '')
      FROM users WHERE users.level = 'User'`,
    `INSERT INTO customer_search (customer_search) VALUES ('rebuild')`,
    `INSERT INTO email_search (email_search) VALUES ('rebuild')`,
    ...names.map(createTrigger),
  ];
  await client.batch(statements, "write");
}

/** For the tests: the step and balance flag as derived now, beside the kept ones. */
export const DERIVED_CHECK = `SELECT users.id, users.step AS kept_step, ${STEP} AS step,
  users.has_balance AS kept_balance, ${HAS_BALANCE} AS has_balance FROM users WHERE users.level = 'User'`;

/** The search tables (with the FTS5 tables' own, whose names begin with theirs and "_"). */
export const SEARCH_TABLES = ["customer_search", "email_search"] as const;
