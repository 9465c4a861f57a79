CREATE TABLE `account_invitations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`token_hash` text NOT NULL,
	`invited_by` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`accepted_at` integer,
	`accepted_by` integer,
	`revoked_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`invited_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`accepted_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `account_invitations_token_hash_unique` ON `account_invitations` (`token_hash`);--> statement-breakpoint
CREATE INDEX `account_invitations_account` ON `account_invitations` (`account_id`);--> statement-breakpoint
CREATE TABLE `approval_rules` (
	`account_id` integer PRIMARY KEY NOT NULL,
	`mode` text NOT NULL,
	`thresholds` text NOT NULL,
	`new_recipient` integer NOT NULL,
	`updated_by` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`updated_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `notifications` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`account_id` integer,
	`kind` text NOT NULL,
	`title` text NOT NULL,
	`body` text NOT NULL,
	`link` text,
	`created_at` integer NOT NULL,
	`delivered_at` integer,
	`read_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `notifications_user` ON `notifications` (`user_id`,`id`);--> statement-breakpoint
CREATE TABLE `payment_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`payment_id` integer NOT NULL,
	`event` text NOT NULL,
	`actor_id` integer,
	`on_behalf_admin_id` integer,
	`note` text,
	`at` integer NOT NULL,
	FOREIGN KEY (`payment_id`) REFERENCES `payments`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`actor_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`on_behalf_admin_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `payment_events_payment` ON `payment_events` (`payment_id`,`id`);--> statement-breakpoint
CREATE TABLE `payment_quotes` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`recipient_id` integer NOT NULL,
	`sell_currency` text NOT NULL,
	`buy_currency` text NOT NULL,
	`sell_minor` integer NOT NULL,
	`buy_minor` integer NOT NULL,
	`fee_minor` integer NOT NULL,
	`mid_rate` text NOT NULL,
	`rate` text NOT NULL,
	`bps` integer NOT NULL,
	`priority` integer NOT NULL,
	`rail` text NOT NULL,
	`expected_arrival` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`recipient_id`) REFERENCES `recipients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `payment_quotes_account` ON `payment_quotes` (`account_id`);--> statement-breakpoint
CREATE TABLE `payments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`recipient_id` integer NOT NULL,
	`recipient` text NOT NULL,
	`quote_id` text NOT NULL,
	`sell_currency` text NOT NULL,
	`sell_minor` integer NOT NULL,
	`buy_currency` text NOT NULL,
	`buy_minor` integer NOT NULL,
	`fee_minor` integer NOT NULL,
	`mid_rate` text NOT NULL,
	`rate` text NOT NULL,
	`bps` integer NOT NULL,
	`priority` integer NOT NULL,
	`rail` text NOT NULL,
	`reference` text NOT NULL,
	`status` text NOT NULL,
	`expected_arrival` integer NOT NULL,
	`created_by` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`approved_by` integer,
	`approved_at` integer,
	`reason` text,
	`batch_id` integer,
	`rail_reference` text,
	`hold_transfer_id` integer NOT NULL,
	`payout_transfer_id` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`recipient_id`) REFERENCES `recipients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`quote_id`) REFERENCES `payment_quotes`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`approved_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`batch_id`) REFERENCES `payout_batches`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "payments_amounts" CHECK(sell_minor > 0 AND buy_minor > 0 AND fee_minor >= 0 AND fee_minor < sell_minor)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payments_quote_id_unique` ON `payments` (`quote_id`);--> statement-breakpoint
CREATE INDEX `payments_account` ON `payments` (`account_id`,`id`);--> statement-breakpoint
CREATE INDEX `payments_queue` ON `payments` (`status`,`rail`,`id`);--> statement-breakpoint
CREATE INDEX `payments_batch` ON `payments` (`batch_id`);--> statement-breakpoint
CREATE TABLE `payout_batches` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`scheme` text NOT NULL,
	`message_id` text NOT NULL,
	`currency` text NOT NULL,
	`payment_count` integer NOT NULL,
	`total_minor` integer NOT NULL,
	`file` text NOT NULL,
	`created_by` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payout_batches_message_id_unique` ON `payout_batches` (`message_id`);--> statement-breakpoint
CREATE TABLE `recipient_changes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`recipient_id` integer NOT NULL,
	`kind` text NOT NULL,
	`before` text,
	`after` text,
	`changed_by` integer NOT NULL,
	`on_behalf_admin_id` integer,
	`changed_at` integer NOT NULL,
	FOREIGN KEY (`recipient_id`) REFERENCES `recipients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`changed_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`on_behalf_admin_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `recipient_changes_recipient` ON `recipient_changes` (`recipient_id`,`id`);--> statement-breakpoint
CREATE TABLE `recipients` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`currency` text NOT NULL,
	`country` text NOT NULL,
	`email` text,
	`details` text NOT NULL,
	`details_changed_at` integer NOT NULL,
	`created_by` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `recipients_account` ON `recipients` (`account_id`,`id`);--> statement-breakpoint
-- Customers' held balances and the house's payouts: the owner CHECK of ledger_accounts changes, so
-- the table is rebuilt. Its triggers (0003_ledger_immutable) go with the old table and are made
-- again below; the entries' currency trigger names the table, so it is dropped first (SQLite
-- re-reads triggers when a table is renamed). Foreign keys are checked at commit (the migration
-- runs in a transaction, where PRAGMA foreign_keys cannot change).
PRAGMA defer_foreign_keys = ON;--> statement-breakpoint
DROP TRIGGER `ledger_entries_currency`;--> statement-breakpoint
CREATE TABLE `__new_ledger_accounts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`account_id` integer,
	`currency` text NOT NULL,
	`purpose` text NOT NULL,
	`balance` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "ledger_accounts_owner" CHECK((kind = 'customer' AND account_id IS NOT NULL AND purpose IN ('balance', 'held')) OR (kind = 'house' AND account_id IS NULL AND purpose IN ('fx_position', 'fee_income', 'incoming_funds', 'unallocated_funds', 'payouts'))),
	CONSTRAINT "ledger_accounts_currency" CHECK(length(currency) = 3 AND currency GLOB '[A-Z][A-Z][A-Z]'),
	CONSTRAINT "ledger_accounts_balance_integer" CHECK(typeof(balance) = 'integer'),
	CONSTRAINT "ledger_accounts_not_negative" CHECK(purpose IN ('fx_position', 'incoming_funds') OR balance >= 0)
);
--> statement-breakpoint
INSERT INTO `__new_ledger_accounts`("id", "kind", "account_id", "currency", "purpose", "balance", "created_at") SELECT "id", "kind", "account_id", "currency", "purpose", "balance", "created_at" FROM `ledger_accounts`;--> statement-breakpoint
DROP TABLE `ledger_accounts`;--> statement-breakpoint
ALTER TABLE `__new_ledger_accounts` RENAME TO `ledger_accounts`;--> statement-breakpoint
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
--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_accounts_customer` ON `ledger_accounts` (`account_id`,`currency`,`purpose`) WHERE kind = 'customer';--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_accounts_house` ON `ledger_accounts` (`purpose`,`currency`) WHERE kind = 'house';--> statement-breakpoint
ALTER TABLE `sessions` ADD `current_account_id` integer;