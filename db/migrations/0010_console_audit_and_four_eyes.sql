-- The audit log gains who it was for (subject_id, renamed from on_behalf_of_id, and account_id)
-- and the values before and after; `detail` becomes `after`, and the on-behalf middleware's rows
-- ("POST /api/...", {status}) become the action on-behalf.call with the method, path and status;
-- a detail of {before, after} (the fee overrides') is split into the two columns.
-- Rebuilt rather than altered: SQLite cannot drop a column a foreign key uses.
DROP INDEX `audit_log_subject`;--> statement-breakpoint
CREATE TABLE `__new_audit_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`actor_id` integer NOT NULL,
	`subject_id` integer,
	`account_id` integer,
	`action` text NOT NULL,
	`before` text,
	`after` text,
	FOREIGN KEY (`actor_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`subject_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_audit_log`("id", "at", "actor_id", "subject_id", "account_id", "action", "before", "after")
	SELECT "id", "at", "actor_id", "on_behalf_of_id", NULL,
		CASE WHEN "action" LIKE '% /api/%' THEN 'on-behalf.call' ELSE "action" END,
		CASE WHEN json_valid("detail") AND json_type("detail", '$.before') IS NOT NULL AND json_type("detail", '$.after') IS NOT NULL
			THEN json_extract("detail", '$.before') END,
		CASE WHEN "action" LIKE '% /api/%'
			THEN json_object('method', substr("action", 1, instr("action", ' ') - 1), 'path', substr("action", instr("action", ' ') + 1), 'status', json_extract("detail", '$.status'))
			WHEN json_valid("detail") AND json_type("detail", '$.before') IS NOT NULL AND json_type("detail", '$.after') IS NOT NULL
			THEN json_extract("detail", '$.after')
			ELSE "detail" END
	FROM `audit_log`;--> statement-breakpoint
DROP TABLE `audit_log`;--> statement-breakpoint
ALTER TABLE `__new_audit_log` RENAME TO `audit_log`;--> statement-breakpoint
CREATE INDEX `audit_log_subject` ON `audit_log` (`subject_id`);--> statement-breakpoint
CREATE INDEX `audit_log_account` ON `audit_log` (`account_id`);--> statement-breakpoint
-- What was done stays as it was recorded.
CREATE TRIGGER `audit_log_no_update` BEFORE UPDATE ON `audit_log`
BEGIN
	SELECT RAISE(ABORT, 'audit_log is append-only: an entry is never changed');
END;--> statement-breakpoint
CREATE TRIGGER `audit_log_no_delete` BEFORE DELETE ON `audit_log`
BEGIN
	SELECT RAISE(ABORT, 'audit_log is append-only: an entry is never deleted');
END;--> statement-breakpoint
-- Receipts: receipts awaiting a second administrator or held as duplicates are not booked yet, so
-- transfer_id may be null (only then); every existing receipt was booked.
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_receipts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`amount_minor` integer NOT NULL,
	`currency` text NOT NULL,
	`payer_name` text NOT NULL,
	`reference` text NOT NULL,
	`received_at` text NOT NULL,
	`status` text NOT NULL,
	`account_id` integer,
	`transfer_id` integer,
	`allocation_transfer_id` integer,
	`recorded_by` integer NOT NULL,
	`created_at` integer NOT NULL,
	`duplicate_of` integer,
	`approved_by` integer,
	`approved_at` integer,
	`closed_by` integer,
	`closed_at` integer,
	`closed_reason` text,
	`reversal_transfer_id` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`recorded_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`approved_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`closed_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "receipts_status_known" CHECK(status IN ('matched', 'unmatched', 'allocated', 'awaiting_approval', 'held_duplicate', 'declined', 'discarded', 'reversed')),
	CONSTRAINT "receipts_booked" CHECK((status IN ('awaiting_approval', 'held_duplicate', 'declined', 'discarded')) = (transfer_id IS NULL))
);
--> statement-breakpoint
INSERT INTO `__new_receipts`("id", "amount_minor", "currency", "payer_name", "reference", "received_at", "status", "account_id", "transfer_id", "allocation_transfer_id", "recorded_by", "created_at") SELECT "id", "amount_minor", "currency", "payer_name", "reference", "received_at", "status", "account_id", "transfer_id", "allocation_transfer_id", "recorded_by", "created_at" FROM `receipts`;--> statement-breakpoint
DROP TABLE `receipts`;--> statement-breakpoint
ALTER TABLE `__new_receipts` RENAME TO `receipts`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `receipts_status` ON `receipts` (`status`);--> statement-breakpoint
CREATE INDEX `receipts_repeats` ON `receipts` (`currency`,`amount_minor`,`received_at`);--> statement-breakpoint
-- A compliance review can reject an application.
ALTER TABLE `profiles` ADD `rejected_at` integer;--> statement-breakpoint
ALTER TABLE `profiles` ADD `rejected_by` integer REFERENCES users(id);--> statement-breakpoint
ALTER TABLE `profiles` ADD `rejection_reason` text;--> statement-breakpoint
ALTER TABLE `profiles` ADD `rejection_note` text;--> statement-breakpoint
-- Two new kinds of console alert: a receipt awaiting approval, a receipt held as a likely duplicate.
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_console_alerts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`severity` text NOT NULL,
	`subject` text NOT NULL,
	`message` text NOT NULL,
	`created_at` integer NOT NULL,
	`created_by` integer,
	`assigned_to` integer,
	`resolved_at` integer,
	`resolved_by` integer,
	`resolution_note` text,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`assigned_to`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`resolved_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "console_alerts_kind" CHECK(kind IN ('rate_change', 'large_payment', 'identity_check', 'unmatched_receipt', 'receipt_approval', 'duplicate_receipt', 'payout_failed', 'compliance_review')),
	CONSTRAINT "console_alerts_severity" CHECK(severity IN ('info', 'warning', 'critical')),
	CONSTRAINT "console_alerts_resolution" CHECK((resolved_at IS NULL AND resolved_by IS NULL) OR (resolved_at IS NOT NULL AND resolved_by IS NOT NULL))
);
--> statement-breakpoint
INSERT INTO `__new_console_alerts`("id", "kind", "severity", "subject", "message", "created_at", "created_by", "assigned_to", "resolved_at", "resolved_by", "resolution_note") SELECT "id", "kind", "severity", "subject", "message", "created_at", "created_by", "assigned_to", "resolved_at", "resolved_by", "resolution_note" FROM `console_alerts`;--> statement-breakpoint
DROP TABLE `console_alerts`;--> statement-breakpoint
ALTER TABLE `__new_console_alerts` RENAME TO `console_alerts`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `console_alerts_open` ON `console_alerts` (`resolved_at`,`kind`,`created_at`);