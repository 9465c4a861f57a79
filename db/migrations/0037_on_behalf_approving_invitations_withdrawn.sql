-- Decision 073, amended 2026-11-28: an administrator acting on behalf gives nobody a role that
-- approves payments (owner, admin or approver). Invitations to such a role that an administrator
-- made on behalf before this release (0035 recorded who) are withdrawn, as the customer's own owner
-- or admin withdraws one: their links stop working, and the customer invites the person themself.
UPDATE `account_invitations` SET `revoked_at` = CAST(strftime('%s', 'now') AS INTEGER) * 1000
WHERE `on_behalf_admin_id` IS NOT NULL AND `role` IN ('owner', 'admin', 'approver')
  AND `accepted_at` IS NULL AND `revoked_at` IS NULL;
