-- An invitation made by an administrator acting on the customer's behalf now records that
-- administrator (`on_behalf_admin_id`, written with the invitation). Before this release only the
-- audit entry written with it said so: its actor the administrator, its subject the customer (only
-- entries made on behalf have a subject). The invitations made before take the administrator from
-- that entry, so what they say of their inviter ("… of our team (on behalf of …)") is unchanged.
UPDATE `account_invitations` SET `on_behalf_admin_id` = (
  SELECT `audit_log`.`actor_id` FROM `audit_log`
   WHERE `audit_log`.`account_id` = `account_invitations`.`account_id`
     AND `audit_log`.`action` = 'account-users.invite'
     AND `audit_log`.`subject_id` IS NOT NULL
     AND json_extract(`audit_log`.`after`, '$.invitation_id') = `account_invitations`.`id`
   ORDER BY `audit_log`.`id` DESC LIMIT 1
) WHERE `on_behalf_admin_id` IS NULL;
