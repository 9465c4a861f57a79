CREATE TABLE `backfills` (
	`name` text PRIMARY KEY NOT NULL,
	`done_at` integer NOT NULL,
	`rows` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `partner_shares` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`partner_id` integer NOT NULL,
	`share_bps` integer NOT NULL,
	`starts_at` integer NOT NULL,
	`created_by` integer NOT NULL,
	FOREIGN KEY (`partner_id`) REFERENCES `partners`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `partner_shares_partner` ON `partner_shares` (`partner_id`,`starts_at`);--> statement-breakpoint
DROP INDEX `users_partner`;--> statement-breakpoint
ALTER TABLE `users` ADD `funded_at` integer;--> statement-breakpoint
CREATE INDEX `users_referral_code` ON `users` (`referral_code`,`partner_id`,`funded_at`);--> statement-breakpoint
CREATE INDEX `users_signups` ON `users` (`level`,`created_at`,`funded_at`,`partner_id`,`referral_code`);--> statement-breakpoint
CREATE INDEX `users_partner` ON `users` (`partner_id`,`created_at`,`funded_at`);--> statement-breakpoint
ALTER TABLE `attributions` ADD `funded_at` integer;--> statement-breakpoint
CREATE INDEX `attributions_source` ON `attributions` (`utm_source`,`utm_medium`,`utm_campaign`,`referrer`,`created_at`,`funded_at`);