-- Decision 050, amended 2026-11-28: from this release a bulk email's recipient is `sending` only once
-- its mail is on the wire up to its final dot, and a resumed job records it sent. A runner of the
-- release before marked `sending` before handing the mail over, so a recipient it left `sending`
-- (the deployment stopped it mid-send) may have been mailed or not: in doubt, as that release's own
-- resume said, and never taken for sent.
UPDATE `bulk_email_recipients` SET `state` = 'in doubt' WHERE `state` = 'sending';
