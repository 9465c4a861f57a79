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
import { incomeEntries, partnersOfAccounts, periodBounds, type ProfitQuery } from "../profit/report.ts";
import { customersWhere, fundedSql, type PartnerCustomer } from "./partners.ts";

/**
 * Affiliates, referrals, commissions and attributions (issue 11 item 6, decision 051).
 *
 * - A referral code belongs to a partner (their `code`), or to a customer when it is the reference
 *   of an account they own (a customer who tells a friend "register with P12345678"), or to nobody
 *   known. Only partners earn a commission: customers' referrals are listed, not paid.
 * - A partner's commission for a period is their share (basis points) of the fee and markup income
 *   of their customers' accounts in the period, per currency, read by the profit report's own query
 *   (`incomeEntries`), so the two screens never disagree; rounded once per partner and currency,
 *   half away from zero. A refund in the period lowers it.
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

/** The code and owner of each referred customer: their partner's, else the code they typed. */
async function withOwners(db: Database, customers: Referred[]) {
  const partners = new Map(
    (await rowsOf<{ id: number; name: string; code: string }>(db, "SELECT id, name, code FROM partners")).map((p) => [
      p.id,
      p,
    ]),
  );
  const typed = [
    ...new Set(customers.filter((c) => c.partner_id === null).map((c) => (c.referral_code ?? "").toUpperCase())),
  ];
  const owners = await customerOwners(db, typed);
  return {
    partners,
    rows: customers.map(({ referral_code, partner_id, ...customer }) => {
      const partner = partner_id === null ? undefined : partners.get(partner_id);
      if (partner) {
        return {
          code: partner.code,
          owner: { kind: "partner", id: partner.id, name: partner.name } as Owner,
          customer,
        };
      }
      const code = (referral_code ?? "").toUpperCase();
      return { code, owner: owners.get(code) ?? UNKNOWN, customer };
    }),
  };
}

/** Every referral code: each partner's (even without sign-ups), then every other code typed. */
export async function affiliates(db: Database): Promise<z.output<typeof affiliateRow>[]> {
  const referred = await customersWhere(db, "(u.referral_code IS NOT NULL OR u.partner_id IS NOT NULL)", []);
  const { partners, rows } = await withOwners(db, referred);
  const byCode = new Map<string, z.output<typeof affiliateRow>>();
  for (const p of partners.values()) {
    byCode.set(p.code, { code: p.code, owner: { kind: "partner", id: p.id, name: p.name }, signups: 0, funded: 0 });
  }
  for (const r of rows) {
    const row = byCode.get(r.code) ?? { code: r.code, owner: r.owner, signups: 0, funded: 0 };
    row.signups += 1;
    if (r.customer.funded) row.funded += 1;
    byCode.set(r.code, row);
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
  const [{ fees, markups }, ofAccount, partners] = await Promise.all([
    incomeEntries(db, start, end),
    partnersOfAccounts(db),
    rowsOf<{ id: number; name: string; code: string; share_bps: number }>(
      db,
      "SELECT id, name, code, share_bps FROM partners",
    ),
  ]);
  const byId = new Map(partners.map((p) => [p.id, p]));
  const sums = new Map<string, { partner_id: number; currency: string; markup: number; fees: number }>();
  const add = (e: { currency: string; account_id: number | null }, field: "markup" | "fees", n: number) => {
    const partner = e.account_id === null ? undefined : ofAccount.get(e.account_id);
    if (!partner) return;
    const key = `${partner.id}\u0000${e.currency}`;
    const sum = sums.get(key) ?? { partner_id: partner.id, currency: e.currency, markup: 0, fees: 0 };
    sum[field] += n;
    sums.set(key, sum);
  };
  for (const e of fees) add(e, "fees", e.amount);
  for (const e of markups) add(e, "markup", e.amount);
  return [...sums.values()].map((s) => {
    const p = byId.get(s.partner_id)!;
    const income = s.markup + s.fees;
    return {
      ...s,
      partner: p.name,
      code: p.code,
      share_bps: p.share_bps,
      income,
      commission: commissionOf(income, p.share_bps),
    };
  }).sort((a, b) =>
    a.partner.localeCompare(b.partner) || a.partner_id - b.partner_id || a.currency.localeCompare(b.currency)
  );
}

export async function referrals(db: Database, period: Period): Promise<z.output<typeof listReferrals.answer>> {
  const { start, end } = periodBounds(period);
  const referred = await customersWhere(
    db,
    "(u.referral_code IS NOT NULL OR u.partner_id IS NOT NULL) AND u.created_at >= ? AND u.created_at < ?",
    [start, end],
  );
  const { rows } = await withOwners(db, referred);
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
  return { from: period.from, to: period.to, referrals: rows, commissions };
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

/** Sign-ups in the period by campaign (utm source, medium, campaign) and by referrer's site. */
export async function attributionsOf(db: Database, period: Period): Promise<Attributions> {
  const { start, end } = periodBounds(period);
  const rows = await rowsOf<{
    utm_source: string | null;
    utm_medium: string | null;
    utm_campaign: string | null;
    referrer: string | null;
    funded: number;
  }>(
    db,
    `SELECT t.utm_source, t.utm_medium, t.utm_campaign, t.referrer, ${fundedSql("u.id")} AS funded
       FROM users u LEFT JOIN attributions t ON t.user_id = u.id
      WHERE u.level = 'User' AND u.created_at >= ? AND u.created_at < ?`,
    [start, end],
  );
  const campaigns = new Map<string, Attributions["by_campaign"][number]>();
  const referrers = new Map<string, Attributions["by_referrer"][number]>();
  for (const r of rows) {
    const funded = r.funded ? 1 : 0;
    const key = JSON.stringify([r.utm_source, r.utm_medium, r.utm_campaign]);
    const campaign = campaigns.get(key) ??
      { utm_source: r.utm_source, utm_medium: r.utm_medium, utm_campaign: r.utm_campaign, signups: 0, funded: 0 };
    campaign.signups += 1;
    campaign.funded += funded;
    campaigns.set(key, campaign);
    const site = referrerSite(r.referrer);
    const referrer = referrers.get(site ?? "") ?? { referrer: site, signups: 0, funded: 0 };
    referrer.signups += 1;
    referrer.funded += funded;
    referrers.set(site ?? "", referrer);
  }
  const bySignups = (a: { signups: number }, b: { signups: number }) => b.signups - a.signups;
  return {
    from: period.from,
    to: period.to,
    signups: rows.length,
    funded: rows.filter((r) => r.funded).length,
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
