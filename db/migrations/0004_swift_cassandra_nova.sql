CREATE TABLE `account_plans` (
	`account_id` integer PRIMARY KEY NOT NULL,
	`plan_id` integer NOT NULL,
	`assigned_at` integer NOT NULL,
	`assigned_by` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`plan_id`) REFERENCES `pricing_plans`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`assigned_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `conversions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`quote_id` text NOT NULL,
	`transfer_id` integer NOT NULL,
	`sell_currency` text NOT NULL,
	`sell_minor` integer NOT NULL,
	`buy_currency` text NOT NULL,
	`buy_minor` integer NOT NULL,
	`fee_minor` integer NOT NULL,
	`rate` text NOT NULL,
	`created_by` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`quote_id`) REFERENCES `quotes`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `conversions_quote_id_unique` ON `conversions` (`quote_id`);--> statement-breakpoint
CREATE INDEX `conversions_account` ON `conversions` (`account_id`,`id`);--> statement-breakpoint
CREATE TABLE `pricing_plans` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`tier_currency` text NOT NULL,
	`tiers` text NOT NULL,
	`fees` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `quotes` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`sell_currency` text NOT NULL,
	`buy_currency` text NOT NULL,
	`sell_minor` integer NOT NULL,
	`buy_minor` integer NOT NULL,
	`fee_minor` integer NOT NULL,
	`mid_rate` text NOT NULL,
	`rate` text NOT NULL,
	`bps` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `quotes_account` ON `quotes` (`account_id`);--> statement-breakpoint
CREATE TABLE `rate_tables` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`base` text NOT NULL,
	`as_of` text NOT NULL,
	`source` text NOT NULL,
	`rates` text NOT NULL,
	`created_at` integer NOT NULL,
	`created_by` integer,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `receipts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`amount_minor` integer NOT NULL,
	`currency` text NOT NULL,
	`payer_name` text NOT NULL,
	`reference` text NOT NULL,
	`received_at` text NOT NULL,
	`status` text NOT NULL,
	`account_id` integer,
	`transfer_id` integer NOT NULL,
	`allocation_transfer_id` integer,
	`recorded_by` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`recorded_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `receipts_status` ON `receipts` (`status`);