CREATE TABLE `income_days` (
	`day` integer NOT NULL,
	`account_id` integer NOT NULL,
	`currency` text NOT NULL,
	`fees` integer DEFAULT 0 NOT NULL,
	`markup` integer DEFAULT 0 NOT NULL,
	`entries` integer DEFAULT 0 NOT NULL,
	`first_at` integer,
	`last_at` integer,
	`irregular` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`day`, `account_id`, `currency`)
);
--> statement-breakpoint
CREATE TABLE `income_days_filled` (
	`day` integer PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE INDEX `account_members_first_owner` ON `account_members` (`account_id`,`role`,`created_at`,`user_id`);