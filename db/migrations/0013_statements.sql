CREATE TABLE `statements` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`requested_by` integer NOT NULL,
	`currency` text,
	`period_from` text NOT NULL,
	`period_to` text NOT NULL,
	`closing_at` integer NOT NULL,
	`format` text NOT NULL,
	`job_id` integer,
	`content` blob,
	`file_name` text NOT NULL,
	`line_count` integer,
	`size_bytes` integer,
	`created_at` integer NOT NULL,
	`ready_at` integer,
	`expires_at` integer,
	`purged_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`requested_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "statements_format" CHECK(format IN ('csv', 'pdf'))
);
--> statement-breakpoint
CREATE INDEX `statements_account` ON `statements` (`account_id`,`id`);--> statement-breakpoint
CREATE INDEX `statements_expiry` ON `statements` (`expires_at`) WHERE content IS NOT NULL;