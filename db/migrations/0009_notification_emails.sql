ALTER TABLE `notifications` ADD `emailed_at` integer;--> statement-breakpoint
CREATE INDEX `notifications_undelivered` ON `notifications` (`user_id`) WHERE delivered_at IS NULL;--> statement-breakpoint
CREATE INDEX `notifications_unemailed` ON `notifications` (`user_id`) WHERE emailed_at IS NULL;--> statement-breakpoint
CREATE INDEX `payments_recipient` ON `payments` (`recipient_id`,`created_at`);