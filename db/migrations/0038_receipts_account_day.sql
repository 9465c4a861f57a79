DROP INDEX `receipts_account`;--> statement-breakpoint
CREATE INDEX `receipts_account` ON `receipts` (`account_id`,`status`,`created_at`);