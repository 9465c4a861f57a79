ALTER TABLE `console_alerts` ADD `dedupe_key` text;--> statement-breakpoint
CREATE UNIQUE INDEX `console_alerts_dedupe` ON `console_alerts` (`dedupe_key`);--> statement-breakpoint
CREATE INDEX `console_alerts_assigned` ON `console_alerts` (`assigned_to`,`resolved_at`);--> statement-breakpoint
CREATE INDEX `emails_created` ON `emails` (`created_at`);