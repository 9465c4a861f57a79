CREATE TABLE `console_alerts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`severity` text NOT NULL,
	`subject` text NOT NULL,
	`message` text NOT NULL,
	`created_at` integer NOT NULL,
	`created_by` integer,
	`assigned_to` integer,
	`resolved_at` integer,
	`resolved_by` integer,
	`resolution_note` text,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`assigned_to`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`resolved_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "console_alerts_kind" CHECK(kind IN ('rate_change', 'large_payment', 'identity_check', 'unmatched_receipt', 'payout_failed', 'compliance_review')),
	CONSTRAINT "console_alerts_severity" CHECK(severity IN ('info', 'warning', 'critical')),
	CONSTRAINT "console_alerts_resolution" CHECK((resolved_at IS NULL AND resolved_by IS NULL) OR (resolved_at IS NOT NULL AND resolved_by IS NOT NULL))
);
--> statement-breakpoint
CREATE INDEX `console_alerts_open` ON `console_alerts` (`resolved_at`,`kind`,`created_at`);--> statement-breakpoint
ALTER TABLE `rate_tables` ADD `confirmed_changes` text;--> statement-breakpoint
ALTER TABLE `rate_tables` ADD `confirmed_by` integer REFERENCES users(id);