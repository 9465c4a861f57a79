-- A notice about a payment names its payment in `payment_id` from 0032 on; the ones written before
-- named it only in their link, `/account/pendingpayments/<id>` (25 characters, then the id). Each is
-- given the payment its link names, when that payment exists on the notice's account; any other
-- notice (a rate alert's, a link of another shape) keeps no payment.
UPDATE `notifications` SET `payment_id` = CAST(substr(`link`, 26) AS INTEGER)
WHERE `payment_id` IS NULL
  AND `kind` IN ('payment_approval_needed', 'payment_approved', 'payment_rejected', 'payment_sent',
    'payment_arrived', 'payment_failed')
  AND substr(`link`, 1, 25) = '/account/pendingpayments/'
  AND substr(`link`, 26) <> '' AND substr(`link`, 26) NOT GLOB '*[^0-9]*'
  AND EXISTS (SELECT 1 FROM `payments` p
    WHERE p.`id` = CAST(substr(`notifications`.`link`, 26) AS INTEGER) AND p.`account_id` = `notifications`.`account_id`);
