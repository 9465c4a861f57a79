CREATE TABLE `migration_rows` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`run_id` integer NOT NULL,
	`line` integer NOT NULL,
	`legacy_id` text,
	`email` text,
	`outcome` text NOT NULL,
	`field` text,
	`reason` text,
	`data` text,
	`user_id` integer,
	`mail_begun_at` integer,
	`mailed_at` integer,
	FOREIGN KEY (`run_id`) REFERENCES `migration_runs`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `migration_rows_run` ON `migration_rows` (`run_id`,`line`);--> statement-breakpoint
CREATE UNIQUE INDEX `migration_rows_legacy_migrated` ON `migration_rows` (`legacy_id`) WHERE user_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `migration_rows_user` ON `migration_rows` (`user_id`);--> statement-breakpoint
CREATE TABLE `migration_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`dry_run` integer NOT NULL,
	`file_name` text NOT NULL,
	`created_by` integer NOT NULL,
	`created_at` integer NOT NULL,
	`job_id` integer,
	`finished_at` integer,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`id`) ON UPDATE no action ON DELETE set null
);
