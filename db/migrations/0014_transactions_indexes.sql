CREATE INDEX `conversions_transfer` ON `conversions` (`transfer_id`);--> statement-breakpoint
CREATE INDEX `ledger_entries_account_time` ON `ledger_entries` (`ledger_account_id`,`created_at`,`transfer_id`);--> statement-breakpoint
CREATE INDEX `receipts_account` ON `receipts` (`account_id`);--> statement-breakpoint
CREATE INDEX `receipts_transfer` ON `receipts` (`transfer_id`);--> statement-breakpoint
CREATE INDEX `receipts_allocation_transfer` ON `receipts` (`allocation_transfer_id`);--> statement-breakpoint
CREATE INDEX `receipts_reversal_transfer` ON `receipts` (`reversal_transfer_id`);