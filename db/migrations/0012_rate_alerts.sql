CREATE TABLE `rate_alerts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`created_by` integer NOT NULL,
	`sell_currency` text NOT NULL,
	`buy_currency` text NOT NULL,
	`target_rate` text NOT NULL,
	`direction` text NOT NULL,
	`paused` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`fired_at` integer,
	`fired_rate` text,
	`fired_rate_table_id` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "rate_alerts_direction" CHECK("rate_alerts"."direction" IN ('above', 'below'))
);
--> statement-breakpoint
CREATE INDEX `rate_alerts_account` ON `rate_alerts` (`account_id`,`id`);--> statement-breakpoint
CREATE INDEX `rate_alerts_watching` ON `rate_alerts` (`sell_currency`,`buy_currency`) WHERE fired_at IS NULL AND paused = 0;