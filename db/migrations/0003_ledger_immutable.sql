-- The ledger is append-only: entries and transfers are never changed or deleted (a correction is a
-- new transfer), and a ledger account never changes owner, currency or purpose, nor disappears.
-- Only ledger_accounts.balance is ever updated, in the transaction that writes the entries.
-- `deno task ledger:check` verifies that these triggers exist.
CREATE TRIGGER `ledger_entries_no_update` BEFORE UPDATE ON `ledger_entries`
BEGIN
	SELECT RAISE(ABORT, 'ledger entries are never changed: post a correction instead');
END;
--> statement-breakpoint
CREATE TRIGGER `ledger_entries_no_delete` BEFORE DELETE ON `ledger_entries`
BEGIN
	SELECT RAISE(ABORT, 'ledger entries are never deleted: post a correction instead');
END;
--> statement-breakpoint
CREATE TRIGGER `ledger_transfers_no_update` BEFORE UPDATE ON `ledger_transfers`
BEGIN
	SELECT RAISE(ABORT, 'ledger transfers are never changed: post a correction instead');
END;
--> statement-breakpoint
CREATE TRIGGER `ledger_transfers_no_delete` BEFORE DELETE ON `ledger_transfers`
BEGIN
	SELECT RAISE(ABORT, 'ledger transfers are never deleted: post a correction instead');
END;
--> statement-breakpoint
CREATE TRIGGER `ledger_accounts_fixed` BEFORE UPDATE OF `id`, `kind`, `account_id`, `currency`, `purpose`, `created_at` ON `ledger_accounts`
BEGIN
	SELECT RAISE(ABORT, 'a ledger account never changes owner, currency or purpose');
END;
--> statement-breakpoint
CREATE TRIGGER `ledger_accounts_no_delete` BEFORE DELETE ON `ledger_accounts`
BEGIN
	SELECT RAISE(ABORT, 'ledger accounts are never deleted');
END;
--> statement-breakpoint
CREATE TRIGGER `ledger_entries_currency` BEFORE INSERT ON `ledger_entries`
WHEN NEW.`currency` IS NOT (SELECT `currency` FROM `ledger_accounts` WHERE `id` = NEW.`ledger_account_id`)
BEGIN
	SELECT RAISE(ABORT, 'a ledger entry is in its account''s currency');
END;
