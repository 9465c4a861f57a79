-- users_level_created (level, created_at) is a prefix of users_signups (level, created_at,
-- funded_at, partner_id, referral_code): every read it served reads users_signups as well.
DROP INDEX IF EXISTS `users_level_created`;
--> statement-breakpoint
-- A kept session (server/auth/session-cache.ts, decision 054) holds its user's summary
-- (server/auth/users.ts summaryFrom): it goes stale only when one of the columns that summary is
-- read from changes, or the user's credentials do (password, authenticator key). A sign-in time,
-- an accepted authenticator step, the kept onboarding step or balance flag (db/derived.ts: their
-- causes in profiles, identity checks and memberships move the version themselves), funded_at or
-- the partner no longer drop every kept session of the user. on_behalf_of is read per request.
DROP TRIGGER IF EXISTS `users_changed_for_sessions`;
--> statement-breakpoint
CREATE TRIGGER `users_changed_for_sessions` AFTER UPDATE OF `username`, `password_hash`, `level`, `type`,
	`validated`, `restricted`, `totp_secret`, `affiliate`, `override_transfer_fee`,
	`override_priority_transfer_fee`, `override_regular_transfer_fee` ON `users`
BEGIN
	UPDATE `data_versions` SET `version` = `version` + 1 WHERE `topic` = 'sessions';
END;
