CREATE TABLE `partners` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`email` text,
	`code` text NOT NULL,
	`share_bps` integer NOT NULL,
	`created_at` integer NOT NULL,
	`created_by` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `partners_code_unique` ON `partners` (`code`);--> statement-breakpoint
CREATE INDEX `partners_name` ON `partners` (`name`);--> statement-breakpoint
ALTER TABLE `users` ADD `partner_id` integer;--> statement-breakpoint
CREATE INDEX `users_partner` ON `users` (`partner_id`);