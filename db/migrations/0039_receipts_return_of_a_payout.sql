ALTER TABLE `receipts` ADD `returns_payment_id` integer REFERENCES payments(id);--> statement-breakpoint
CREATE INDEX `receipts_returns_payment` ON `receipts` (`returns_payment_id`);