import type { z } from "zod";
import type { Database } from "../../db/client.ts";
import { rowsOf } from "../../db/sql.ts";
import type {
  affiliateRow,
  codeOwner,
  commissionRow,
  listAttributions,
  listReferrals,
} from "../../lib/contracts/partners.ts";
import { formatMinor } from "../../lib/money/amounts.ts";
import type { CurrencyCode } from "../../lib/money/currencies.ts";
import { periodBounds, type ProfitQuery } from "../profit/report.ts";
import { attributedIncome } from "./income.ts";
import { customersWhere, type PartnerCustomer } from "./partners.ts";

/**
 * Affiliates, referrals, commissions and attributions (issue 11 item 6, decision 051).
 *
 * - A referral code belongs to a partner (their `code`), or to a customer when it is the reference
 *   of an account they own (a customer who tells a friend "register with P12345678"), or to nobody
 *   known. Only partners earn a commission: customers' referrals are listed, not paid.
 * - A partner's commission for a period is their share (basis points) of the fee and markup income
 *   of the accounts of the customers who were theirs at each movement's time (decision 062), per
 *   currency, read as the profit report by partner reads it (`attributedIncome`, income.ts), so
 *   the two screens never disagree; rounded once per partner and currency,
 *   half away from zero. A refund in the period lowers it: the commission of the partner, at the
 *   share, of the payout it reverses (decision 065), whoever the customer's partner is now.
 */

type Owner = z.output<typeof codeOwner>;
type Period = Pick<ProfitQuery, "from" | "to">;

const UNKNOWN: Owner = { kind: "unknown", id: null, name: null };

/** Who owns each code that is not a partner's: the owner of the account with that reference. */
async function customerOwners(db: Database, codes: string[]): Promise<Map<string, Owner>> {
  const owners = new Map<string, Owner>();
  if (!codes.length) return owners;
  const rows = await rowsOf<{ account_ref: string; user_id: number; name: string }>(
    db,
    `SELECT a.account_ref, m.user_id, a.name FROM accounts a
       JOIN account_members m ON m.account_id = a.id AND m.role = 'owner'
      WHERE a.account_ref IN (${codes.map(() => "?").join(", ")})
      ORDER BY m.created_at DESC`,
    codes,
  );
  for (const r of rows) owners.set(r.account_ref, { kind: "customer", id: r.user_id, name: r.name });
  return owners;
}

interface Referred extends PartnerCustomer {
  referral_code: string | null;
  partner_id: number | null;
}

/**
 * Each referred customer with the code they typed at sign-up and its owner (a partner's code, an
 * account's reference, or nobody known), and, apart, the partner they are with now (decision 065:
 * an administrator's assignment changes the partner, never the code a customer registered with).
 */
async function withOwners(db: Database, customers: Referred[]) {
  const partners = await rowsOf<{ id: number; name: string; code: string }>(db, "SELECT id, name, code FROM partners");
  const byId = new Map(partners.map((p) => [p.id, p]));
  const byCode = new Map(partners.map((p) => [p.code, p]));
  const typed = [...new Set(customers.map((c) => (c.referral_code ?? "").toUpperCase()))]
    .filter((code) => code && !byCode.has(code));
  const owners = await customerOwners(db, typed);
  return customers.map(({ referral_code, partner_id, ...customer }) => {
    const code = (referral_code ?? "").toUpperCase();
    const codePartner = byCode.get(code);
    const owner: Owner = codePartner
      ? { kind: "partner", id: codePartner.id, name: codePartner.name }
      : owners.get(code) ?? UNKNOWN;
    const now = partner_id === null ? undefined : byId.get(partner_id);
    return { code, owner, customer, partner: now ? { id: now.id, name: now.name } : null };
  });
}

/**
 * Every referral code: each partner's (even without sign-ups), then every other code typed. A
 * code's sign-ups are the customers who typed it at registration (`users.referral_code`, a fact of
 * the sign-up), whoever their partner is now: an administrator's assignment moves a customer's
 * income, not their sign-up (decision 065). Counted by the database, grouped on
 * users(referral_code) (decision 055); only the codes no partner has are looked up as references.
 */
export async function affiliates(db: Database): Promise<z.output<typeof affiliateRow>[]> {
  const [partners, typed] = await Promise.all([
    rowsOf<{ id: number; name: string; code: string }>(db, "SELECT id, name, code FROM partners"),
    // Only customers have a typed code (registration sets it; an administrator is never a
    // customer): no level to read, so the index answers alone.
    rowsOf<{ code: string; signups: number; funded: number }>(
      db,
      `SELECT u.referral_code AS code, count(*) AS signups, count(u.funded_at) AS funded
         FROM users u INDEXED BY users_referral_code
        WHERE u.referral_code IS NOT NULL GROUP BY u.referral_code`,
    ),
  ]);
  const byCode = new Map<string, z.output<typeof affiliateRow>>();
  for (const p of partners) {
    byCode.set(p.code, { code: p.code, owner: { kind: "partner", id: p.id, name: p.name }, signups: 0, funded: 0 });
  }
  // Codes are told apart case aside ("friend1" is FRIEND1), as registration compares them.
  const upper = new Map<string, { code: string; signups: number; funded: number }>();
  for (const t of typed) {
    const code = t.code.toUpperCase();
    const sum = upper.get(code) ?? { code, signups: 0, funded: 0 };
    sum.signups += Number(t.signups);
    sum.funded += Number(t.funded);
    upper.set(code, sum);
  }
  const owners = await customerOwners(db, [...upper.keys()].filter((code) => code && !byCode.has(code)));
  for (const t of upper.values()) {
    const row = byCode.get(t.code) ?? { code: t.code, owner: owners.get(t.code) ?? UNKNOWN, signups: 0, funded: 0 };
    row.signups += Number(t.signups);
    row.funded += Number(t.funded);
    byCode.set(t.code, row);
  }
  const order = { partner: 0, customer: 1, unknown: 2 } as const;
  return [...byCode.values()].sort((a, b) =>
    order[a.owner.kind] - order[b.owner.kind] || b.signups - a.signups || a.code.localeCompare(b.code)
  );
}

/** Income × share in basis points, rounded half away from zero; exact for any size of income. */
export function commissionOf(income: number, bps: number): number {
  const product = BigInt(income) * BigInt(bps);
  const magnitude = (product < 0n ? -product : product) + 5_000n;
  const rounded = magnitude / 10_000n;
  return Number(product < 0n ? -rounded : rounded);
}

/** Each partner's income and commission in the period, per currency, in minor units. */
export async function commissionFigures(db: Database, period: Period) {
  const { start, end } = periodBounds(period);
  const [income, partners] = await Promise.all([
    // Each part of the income is the partner's whose customer the account's owner was at its time
    // (decision 062; a refund: its payout's, decision 065), at the share in force then (decision 055).
    attributedIncome(db, start, end, { shares: true }),
    rowsOf<{ id: number; name: string; code: string; share_bps: number }>(
      db,
      "SELECT id, name, code, share_bps FROM partners",
    ),
  ]);
  const byId = new Map(partners.map((p) => [p.id, p]));
  const sums = new Map<
    string,
    { partner_id: number; currency: string; share_bps: number; markup: number; fees: number }
  >();
  for (const part of income) {
    if (part.partner_id === null) continue;
    const share = part.share_bps!;
    const key = `${part.partner_id}\u0000${part.currency}\u0000${share}`;
    const sum = sums.get(key) ??
      { partner_id: part.partner_id, currency: part.currency, share_bps: share, markup: 0, fees: 0 };
    sum.fees += part.fees;
    sum.markup += part.markup;
    sums.set(key, sum);
  }
  return [...sums.values()].map((s) => {
    const p = byId.get(s.partner_id)!;
    const income = s.markup + s.fees;
    return {
      ...s,
      partner: p.name,
      code: p.code,
      income,
      commission: commissionOf(income, s.share_bps),
    };
  }).sort((a, b) =>
    a.partner.localeCompare(b.partner) || a.partner_id - b.partner_id || a.currency.localeCompare(b.currency) ||
    a.share_bps - b.share_bps
  );
}

/**
 * A page of the period's sign-ups with a code (newest first) and every partner's commission. The
 * page's ids and the count come from users_signups alone (it holds the codes), then only
 * those customers are read whole (decision 055).
 */
export async function referrals(
  db: Database,
  period: Period,
  page = { page: 1, perPage: 20 },
): Promise<z.output<typeof listReferrals.answer>> {
  const { start, end } = periodBounds(period);
  // Who typed a code at sign-up: a customer an administrator gave a partner typed none.
  const referredSql =
    `FROM users r INDEXED BY users_signups WHERE r.level = 'User' AND r.created_at >= ? AND r.created_at < ?
      AND r.referral_code IS NOT NULL`;
  const [[{ total }], referred] = await Promise.all([
    rowsOf<{ total: number }>(db, `SELECT count(*) AS total ${referredSql}`, [start, end]),
    customersWhere(
      db,
      `u.id IN (SELECT r.id ${referredSql} ORDER BY r.created_at DESC, r.id DESC LIMIT ? OFFSET ?)`,
      [start, end, page.perPage, (page.page - 1) * page.perPage],
    ),
  ]);
  const rows = await withOwners(db, referred);
  const commissions: z.output<typeof commissionRow>[] = (await commissionFigures(db, period)).map((c) => {
    const code = c.currency as CurrencyCode;
    return {
      partner_id: c.partner_id,
      partner: c.partner,
      code: c.code,
      share_bps: c.share_bps,
      currency: c.currency,
      markup: formatMinor(code, c.markup),
      fees: formatMinor(code, c.fees),
      income: formatMinor(code, c.income),
      commission: formatMinor(code, c.commission),
    };
  });
  return {
    from: period.from,
    to: period.to,
    referrals: { items: rows, page: page.page, per_page: page.perPage, total: Number(total) },
    commissions,
  };
}

/** The site a referrer address names ("news.example.com"); the text itself if it is no address. */
export function referrerSite(referrer: string | null): string | null {
  if (!referrer) return null;
  try {
    return new URL(referrer).host || referrer;
  } catch {
    return referrer;
  }
}

type Attributions = z.output<typeof listAttributions.answer>;

/**
 * Sign-ups in the period by campaign (utm source, medium, campaign) and by referrer's site. The
 * database groups the period's sign-ups by the four texts (decision 055: a few hundred groups for
 * tens of thousands of sign-ups); the referrers are then reduced to their sites here.
 */
export async function attributionsOf(db: Database, period: Period): Promise<Attributions> {
  const { start, end } = periodBounds(period);
  // Read in the order of attributions_source: no sort and no lookup, whatever the period's length.
  const grouped = await rowsOf<{
    utm_source: string | null;
    utm_medium: string | null;
    utm_campaign: string | null;
    referrer: string | null;
    signups: number;
    funded: number;
  }>(
    db,
    `SELECT t.utm_source, t.utm_medium, t.utm_campaign, t.referrer, count(*) AS signups, count(t.funded_at) AS funded
       FROM attributions t INDEXED BY attributions_source
      WHERE t.created_at >= ? AND t.created_at < ?
      GROUP BY t.utm_source, t.utm_medium, t.utm_campaign, t.referrer`,
    [start, end],
  );
  // Every sign-up of the period (customers, not administrators), from users_signups alone.
  const [all] = await rowsOf<{ signups: number; funded: number }>(
    db,
    `SELECT count(*) AS signups, count(u.funded_at) AS funded FROM users u INDEXED BY users_signups
      WHERE u.level = 'User' AND u.created_at >= ? AND u.created_at < ?`,
    [start, end],
  );
  // A customer made by a customer migration (decision 049) did not sign up: they were brought over
  // from the old system, on the day of its run. Taken away, they are no sign-up and no funded one.
  const [migrated] = await rowsOf<{ signups: number; funded: number }>(
    db,
    `SELECT count(*) AS signups, count(u.funded_at) AS funded FROM users u
      WHERE u.id IN (SELECT user_id FROM migration_rows WHERE user_id IS NOT NULL)
        AND u.level = 'User' AND u.created_at >= ? AND u.created_at < ?`,
    [start, end],
  );
  // A customer who signed up with no attribution (a login made by accepting an account invitation)
  // counts as no campaign, no site.
  const attributed = grouped.reduce((n, r) => n + Number(r.signups), 0);
  const attributedFunded = grouped.reduce((n, r) => n + Number(r.funded), 0);
  const signedUp = Number(all.signups) - Number(migrated.signups);
  const rows = signedUp > attributed
    ? [...grouped, {
      utm_source: null,
      utm_medium: null,
      utm_campaign: null,
      referrer: null,
      signups: signedUp - attributed,
      funded: Number(all.funded) - Number(migrated.funded) - attributedFunded,
    }]
    : grouped;
  const campaigns = new Map<string, Attributions["by_campaign"][number]>();
  const referrers = new Map<string, Attributions["by_referrer"][number]>();
  let signups = 0;
  let funded = 0;
  for (const r of rows) {
    const n = Number(r.signups);
    const f = Number(r.funded);
    signups += n;
    funded += f;
    const key = JSON.stringify([r.utm_source, r.utm_medium, r.utm_campaign]);
    const campaign = campaigns.get(key) ??
      { utm_source: r.utm_source, utm_medium: r.utm_medium, utm_campaign: r.utm_campaign, signups: 0, funded: 0 };
    campaign.signups += n;
    campaign.funded += f;
    campaigns.set(key, campaign);
    const site = referrerSite(r.referrer);
    const referrer = referrers.get(site ?? "") ?? { referrer: site, signups: 0, funded: 0 };
    referrer.signups += n;
    referrer.funded += f;
    referrers.set(site ?? "", referrer);
  }
  const bySignups = (a: { signups: number }, b: { signups: number }) => b.signups - a.signups;
  return {
    from: period.from,
    to: period.to,
    signups,
    funded,
    by_campaign: [...campaigns.values()].sort((a, b) =>
      bySignups(a, b) || JSON.stringify([a.utm_source, a.utm_medium, a.utm_campaign]).localeCompare(
        JSON.stringify([b.utm_source, b.utm_medium, b.utm_campaign]),
      )
    ),
    by_referrer: [...referrers.values()].sort((a, b) =>
      bySignups(a, b) || (a.referrer ?? "").localeCompare(b.referrer ?? "")
    ),
  };
}
