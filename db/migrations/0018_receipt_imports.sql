CREATE TABLE `statement_credits` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`key` text NOT NULL,
	`receipt_id` integer,
	`message_id` text NOT NULL,
	`statement_id` text NOT NULL,
	`entry_reference` text,
	`account_servicer_reference` text,
	`account` text NOT NULL,
	`imported_by` integer NOT NULL,
	`imported_at` integer NOT NULL,
	FOREIGN KEY (`receipt_id`) REFERENCES `receipts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`imported_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `statement_credits_key` ON `statement_credits` (`key`);--> statement-breakpoint
CREATE INDEX `statement_credits_receipt` ON `statement_credits` (`receipt_id`);