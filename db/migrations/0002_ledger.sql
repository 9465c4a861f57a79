CREATE TABLE `ledger_accounts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`account_id` integer,
	`currency` text NOT NULL,
	`purpose` text NOT NULL,
	`balance` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "ledger_accounts_owner" CHECK((kind = 'customer' AND account_id IS NOT NULL AND purpose = 'balance') OR (kind = 'house' AND account_id IS NULL AND purpose IN ('fx_position', 'fee_income', 'incoming_funds', 'unallocated_funds'))),
	CONSTRAINT "ledger_accounts_currency" CHECK(length(currency) = 3 AND currency GLOB '[A-Z][A-Z][A-Z]'),
	CONSTRAINT "ledger_accounts_balance_integer" CHECK(typeof(balance) = 'integer'),
	CONSTRAINT "ledger_accounts_not_negative" CHECK(purpose IN ('fx_position', 'incoming_funds') OR balance >= 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_accounts_customer` ON `ledger_accounts` (`account_id`,`currency`,`purpose`) WHERE kind = 'customer';--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_accounts_house` ON `ledger_accounts` (`purpose`,`currency`) WHERE kind = 'house';--> statement-breakpoint
CREATE TABLE `ledger_entries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`transfer_id` integer NOT NULL,
	`ledger_account_id` integer NOT NULL,
	`currency` text NOT NULL,
	`amount` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`transfer_id`) REFERENCES `ledger_transfers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`ledger_account_id`) REFERENCES `ledger_accounts`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "ledger_entries_amount" CHECK(typeof(amount) = 'integer' AND amount <> 0)
);
--> statement-breakpoint
CREATE INDEX `ledger_entries_transfer` ON `ledger_entries` (`transfer_id`);--> statement-breakpoint
CREATE INDEX `ledger_entries_account` ON `ledger_entries` (`ledger_account_id`);--> statement-breakpoint
CREATE TABLE `ledger_transfers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`description` text NOT NULL,
	`reference` text,
	`created_at` integer NOT NULL,
	`created_by` integer,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_transfers_reference` ON `ledger_transfers` (`kind`,`reference`) WHERE reference IS NOT NULL;