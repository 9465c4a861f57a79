CREATE TABLE `administrators` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`invited_by` integer,
	`invited_at` integer,
	`disabled_at` integer,
	`disabled_by` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`invited_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`disabled_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `users` ADD `last_sign_in_at` integer;