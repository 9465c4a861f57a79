CREATE TABLE `data_versions` (
	`topic` text PRIMARY KEY NOT NULL,
	`version` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
-- Every change to a topic's tables bumps its version in the same transaction, whoever makes it (a
-- console call, the rate feed, a script, another process): caches compare versions (decision 015).
INSERT INTO `data_versions` (`topic`, `version`) VALUES ('rates', 0), ('pricing-plans', 0);
--> statement-breakpoint
CREATE TRIGGER `rate_tables_inserted` AFTER INSERT ON `rate_tables`
BEGIN
	UPDATE `data_versions` SET `version` = `version` + 1 WHERE `topic` = 'rates';
END;
--> statement-breakpoint
CREATE TRIGGER `rate_tables_updated` AFTER UPDATE ON `rate_tables`
BEGIN
	UPDATE `data_versions` SET `version` = `version` + 1 WHERE `topic` = 'rates';
END;
--> statement-breakpoint
CREATE TRIGGER `rate_tables_deleted` AFTER DELETE ON `rate_tables`
BEGIN
	UPDATE `data_versions` SET `version` = `version` + 1 WHERE `topic` = 'rates';
END;
--> statement-breakpoint
CREATE TRIGGER `pricing_plans_inserted` AFTER INSERT ON `pricing_plans`
BEGIN
	UPDATE `data_versions` SET `version` = `version` + 1 WHERE `topic` = 'pricing-plans';
END;
--> statement-breakpoint
CREATE TRIGGER `pricing_plans_updated` AFTER UPDATE ON `pricing_plans`
BEGIN
	UPDATE `data_versions` SET `version` = `version` + 1 WHERE `topic` = 'pricing-plans';
END;
--> statement-breakpoint
CREATE TRIGGER `pricing_plans_deleted` AFTER DELETE ON `pricing_plans`
BEGIN
	UPDATE `data_versions` SET `version` = `version` + 1 WHERE `topic` = 'pricing-plans';
END;
