CREATE TABLE `job_steps` (
	`job_id` integer NOT NULL,
	`step_key` text NOT NULL,
	`begun_at` integer NOT NULL,
	`done_at` integer,
	`result` text,
	PRIMARY KEY(`job_id`, `step_key`),
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`payload` text NOT NULL,
	`status` text NOT NULL,
	`progress_done` integer,
	`progress_total` integer,
	`progress_message` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`max_attempts` integer NOT NULL,
	`run_after` integer NOT NULL,
	`lease_owner` text,
	`lease_expires_at` integer,
	`result` text,
	`error` text,
	`unique_key` text,
	`created_by` integer,
	`account_id` integer,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "jobs_status" CHECK(status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
	CONSTRAINT "jobs_attempts" CHECK(attempts >= 0 AND max_attempts >= 1),
	CONSTRAINT "jobs_lease" CHECK((status = 'running' AND lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL) OR (status <> 'running' AND lease_owner IS NULL AND lease_expires_at IS NULL))
);
--> statement-breakpoint
CREATE INDEX `jobs_claimable` ON `jobs` (`status`,`run_after`);--> statement-breakpoint
CREATE INDEX `jobs_by_account` ON `jobs` (`account_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `jobs_by_kind` ON `jobs` (`kind`,`status`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `jobs_unique_key` ON `jobs` (`unique_key`);