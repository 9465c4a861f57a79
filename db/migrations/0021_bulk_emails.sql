CREATE TABLE `bulk_email_recipients` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`bulk_email_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`email` text NOT NULL,
	`state` text NOT NULL,
	`error` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`bulk_email_id`) REFERENCES `bulk_emails`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bulk_email_recipients_once` ON `bulk_email_recipients` (`bulk_email_id`,`user_id`);--> statement-breakpoint
CREATE INDEX `bulk_email_recipients_state` ON `bulk_email_recipients` (`bulk_email_id`,`state`,`id`);--> statement-breakpoint
CREATE TABLE `bulk_emails` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`subject` text NOT NULL,
	`body` text NOT NULL,
	`segment` text NOT NULL,
	`created_by` integer NOT NULL,
	`created_at` integer NOT NULL,
	`sent_by` integer,
	`sent_at` integer,
	`rate_per_second` integer,
	`job_id` integer,
	`finished_at` integer,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`sent_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE TABLE `marketing_consents` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`unsubscribed_at` integer NOT NULL,
	`bulk_email_id` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`bulk_email_id`) REFERENCES `bulk_emails`(`id`) ON UPDATE no action ON DELETE set null
);
