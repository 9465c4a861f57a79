-- Fee overrides become per currency (docs/decisions/025): override_regular_transfer_fee and
-- override_priority_transfer_fee held one number, charged as-is in whatever currency was sold;
-- they now hold JSON objects of currency → fee in that currency ({"GBP":"0.50"}).
-- An existing override keeps its meaning for the currency it was most likely written in: the tier
-- currency of the customer's pricing plan (their first account's plan, else the default plan's,
-- else GBP), the currency the console's plans are priced in. It is written with that currency's
-- digits, rounded up to its minor unit as it was charged before ("0.5" GBP → "0.50"; "2.50" in
-- JPY → "3"). A value that is not a plain decimal was never charged (quotes refused it) and is
-- dropped, as is an empty one. Every other currency pays the plan's fee from now on.
WITH old AS (
	SELECT u.id AS user_id, 'regular' AS kind, trim(u.override_regular_transfer_fee) AS value FROM users u
	UNION ALL
	SELECT u.id AS user_id, 'priority' AS kind, trim(u.override_priority_transfer_fee) AS value FROM users u
), meant AS (
	SELECT o.user_id, o.kind, o.value, COALESCE(
		(SELECT p.tier_currency FROM account_members m
			JOIN account_plans ap ON ap.account_id = m.account_id
			JOIN pricing_plans p ON p.id = ap.plan_id
			WHERE m.user_id = o.user_id ORDER BY m.account_id LIMIT 1),
		(SELECT p.tier_currency FROM pricing_plans p WHERE p.is_default = 1 ORDER BY p.id LIMIT 1),
		'GBP'
	) AS currency
	FROM old o
	WHERE o.value GLOB '[0-9]*' AND o.value NOT GLOB '*[^0-9.]*' AND o.value NOT GLOB '*.*.*' AND o.value NOT GLOB '*.'
), scaled AS (
	SELECT user_id, kind, currency,
		CASE currency WHEN 'JPY' THEN 0 WHEN 'BHD' THEN 3 WHEN 'KWD' THEN 3 ELSE 2 END AS digits,
		round(CAST(value AS REAL) * CASE currency WHEN 'JPY' THEN 1 WHEN 'BHD' THEN 1000 WHEN 'KWD' THEN 1000 ELSE 100 END, 6) AS exact
	FROM meant
), converted AS (
	SELECT user_id, kind, currency, digits, CAST(exact AS INTEGER) + (exact > CAST(exact AS INTEGER)) AS units
	FROM scaled
), overrides AS (
	SELECT user_id, kind, json_object(currency, CASE digits
		WHEN 0 THEN printf('%d', units)
		WHEN 3 THEN printf('%d.%03d', units / 1000, units % 1000)
		ELSE printf('%d.%02d', units / 100, units % 100)
	END) AS fees
	FROM converted
)
UPDATE users SET
	override_regular_transfer_fee = (SELECT fees FROM overrides o WHERE o.user_id = users.id AND o.kind = 'regular'),
	override_priority_transfer_fee = (SELECT fees FROM overrides o WHERE o.user_id = users.id AND o.kind = 'priority');
