CREATE INDEX `conversions_transfer` ON `conversions` (`transfer_id`);--> statement-breakpoint
CREATE INDEX `ledger_entries_account_time` ON `ledger_entries` (`ledger_account_id`,`created_at`,`transfer_id`);--> statement-breakpoint
CREATE INDEX `receipts_account` ON `receipts` (`account_id`);--> statement-breakpoint
CREATE INDEX `receipts_transfer` ON `receipts` (`transfer_id`);--> statement-breakpoint
CREATE INDEX `receipts_allocation_transfer` ON `receipts` (`allocation_transfer_id`);--> statement-breakpoint
CREATE INDEX `receipts_reversal_transfer` ON `receipts` (`reversal_transfer_id`);--> statement-breakpoint
-- The words a customer searches their transactions by (docs/decisions/036): a receipt's payer and
-- bank reference, a payment's reference and recipient, one line each with a line break between
-- (text fields never hold one, so a search never matches across two). A trigram index finds
-- LIKE '%text%' without reading every row. rowid: a receipt's id × 2, a payment's id × 2 + 1.
CREATE VIRTUAL TABLE `movement_texts` USING fts5(`text`, `account_id` UNINDEXED, tokenize = 'trigram');
--> statement-breakpoint
INSERT INTO `movement_texts` (rowid, `text`, `account_id`)
  SELECT `id` * 2, `payer_name` || char(10) || `reference`, `account_id` FROM `receipts`;
--> statement-breakpoint
INSERT INTO `movement_texts` (rowid, `text`, `account_id`)
  SELECT `id` * 2 + 1, `reference` || char(10) || coalesce(json_extract(`recipient`, '$.name'), ''), `account_id` FROM `payments`;
--> statement-breakpoint
CREATE TRIGGER `receipts_texts_inserted` AFTER INSERT ON `receipts` BEGIN
  INSERT INTO `movement_texts` (rowid, `text`, `account_id`)
    VALUES (NEW.`id` * 2, NEW.`payer_name` || char(10) || NEW.`reference`, NEW.`account_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `receipts_texts_updated` AFTER UPDATE OF `payer_name`, `reference`, `account_id` ON `receipts` BEGIN
  DELETE FROM `movement_texts` WHERE rowid = OLD.`id` * 2;
  INSERT INTO `movement_texts` (rowid, `text`, `account_id`)
    VALUES (NEW.`id` * 2, NEW.`payer_name` || char(10) || NEW.`reference`, NEW.`account_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `payments_texts_inserted` AFTER INSERT ON `payments` BEGIN
  INSERT INTO `movement_texts` (rowid, `text`, `account_id`)
    VALUES (NEW.`id` * 2 + 1, NEW.`reference` || char(10) || coalesce(json_extract(NEW.`recipient`, '$.name'), ''), NEW.`account_id`);
END;
