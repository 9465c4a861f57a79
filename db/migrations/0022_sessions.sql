-- Custom SQL migration file, put your code below! --
-- A signed-in request's session and summary may be kept in memory (server/auth/session-cache.ts,
-- decision 054) only while nothing they are read from changed: every change to a session (but its
-- last-seen time), a user, a profile, an identity check or an account membership bumps the
-- 'sessions' version in the transaction that makes it, whoever makes it (another process too).
INSERT INTO `data_versions` (`topic`, `version`) VALUES ('sessions', 0) ON CONFLICT (`topic`) DO NOTHING;
--> statement-breakpoint
CREATE TRIGGER `sessions_deleted` AFTER DELETE ON `sessions`
BEGIN
	UPDATE `data_versions` SET `version` = `version` + 1 WHERE `topic` = 'sessions';
END;
--> statement-breakpoint
CREATE TRIGGER `sessions_changed` AFTER UPDATE OF `user_id`, `second_factor`, `expires_at` ON `sessions`
BEGIN
	UPDATE `data_versions` SET `version` = `version` + 1 WHERE `topic` = 'sessions';
END;
--> statement-breakpoint
CREATE TRIGGER `users_changed_for_sessions` AFTER UPDATE ON `users`
BEGIN
	UPDATE `data_versions` SET `version` = `version` + 1 WHERE `topic` = 'sessions';
END;
--> statement-breakpoint
CREATE TRIGGER `users_deleted_for_sessions` AFTER DELETE ON `users`
BEGIN
	UPDATE `data_versions` SET `version` = `version` + 1 WHERE `topic` = 'sessions';
END;
--> statement-breakpoint
CREATE TRIGGER `profiles_inserted_for_sessions` AFTER INSERT ON `profiles`
BEGIN
	UPDATE `data_versions` SET `version` = `version` + 1 WHERE `topic` = 'sessions';
END;
--> statement-breakpoint
CREATE TRIGGER `profiles_updated_for_sessions` AFTER UPDATE ON `profiles`
BEGIN
	UPDATE `data_versions` SET `version` = `version` + 1 WHERE `topic` = 'sessions';
END;
--> statement-breakpoint
CREATE TRIGGER `profiles_deleted_for_sessions` AFTER DELETE ON `profiles`
BEGIN
	UPDATE `data_versions` SET `version` = `version` + 1 WHERE `topic` = 'sessions';
END;
--> statement-breakpoint
CREATE TRIGGER `identity_checks_inserted_for_sessions` AFTER INSERT ON `identity_checks`
BEGIN
	UPDATE `data_versions` SET `version` = `version` + 1 WHERE `topic` = 'sessions';
END;
--> statement-breakpoint
CREATE TRIGGER `identity_checks_updated_for_sessions` AFTER UPDATE ON `identity_checks`
BEGIN
	UPDATE `data_versions` SET `version` = `version` + 1 WHERE `topic` = 'sessions';
END;
--> statement-breakpoint
CREATE TRIGGER `identity_checks_deleted_for_sessions` AFTER DELETE ON `identity_checks`
BEGIN
	UPDATE `data_versions` SET `version` = `version` + 1 WHERE `topic` = 'sessions';
END;
--> statement-breakpoint
CREATE TRIGGER `account_members_inserted_for_sessions` AFTER INSERT ON `account_members`
BEGIN
	UPDATE `data_versions` SET `version` = `version` + 1 WHERE `topic` = 'sessions';
END;
--> statement-breakpoint
CREATE TRIGGER `account_members_updated_for_sessions` AFTER UPDATE ON `account_members`
BEGIN
	UPDATE `data_versions` SET `version` = `version` + 1 WHERE `topic` = 'sessions';
END;
--> statement-breakpoint
CREATE TRIGGER `account_members_deleted_for_sessions` AFTER DELETE ON `account_members`
BEGIN
	UPDATE `data_versions` SET `version` = `version` + 1 WHERE `topic` = 'sessions';
END;
