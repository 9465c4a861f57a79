ALTER TABLE `users` ADD `step` text DEFAULT 'verify' NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `has_balance` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `users_level_type` ON `users` (`level`,`type`);--> statement-breakpoint
CREATE INDEX `users_level_step` ON `users` (`level`,`step`,`has_balance`,`type`);--> statement-breakpoint
CREATE INDEX `users_level_balance` ON `users` (`level`,`has_balance`);--> statement-breakpoint
CREATE INDEX `users_level_restricted` ON `users` (`level`,`restricted`);--> statement-breakpoint
CREATE INDEX `users_level_created` ON `users` (`level`,`created_at`);--> statement-breakpoint
CREATE INDEX `emails_to_subject` ON `emails` (`to`,`subject`);