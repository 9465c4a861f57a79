/**
 * Partners, affiliates, referrals and attributions (issue 11 item 6, decision 051): introducers
 * with a revenue share and the customers they brought, the referral codes in use, who signed up
 * with each and the partners' commissions per period, and where sign-ups came from.
 * Administrators only; 404 to anyone else (decision 004).
 */
import { z } from "zod";
import { amountText, currencyCode, idText, idValue, pageOf, pageQuery, text, timestamp } from "./common.ts";
import { defineCall } from "./define.ts";
import { CONSOLE_GUARDS } from "./guards.ts";
import { profitQuery } from "./profit.ts";

const NAME = "Enter the partner's name (at most 100 characters).";
const CODE =
  "The referral code is 3 to 32 letters, digits, - or _ (customers type it at registration; it is kept in capitals).";
const SHARE = "The revenue share is a percentage from 0 to 100 with at most two decimals, such as 12.5.";
const EMAIL = "The email address is not valid.";

/** "12.5" → 1250 basis points; the text was checked by the contract. */
export function bpsOfPercent(percent: string): number {
  const [whole, fraction = ""] = percent.split(".");
  return Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
}

/** 1250 basis points → "12.50". */
export const percentOfBps = (bps: number) => `${Math.trunc(bps / 100)}.${String(bps % 100).padStart(2, "0")}`;

/** What an administrator types to create or change a partner. */
export const partnerInput = z.object({
  name: text({ label: "The name", max: 100, missing: NAME, wrong: NAME, tooLong: NAME }),
  email: text({ label: "The email address", max: 254, min: 0, wrong: EMAIL }).toLowerCase()
    .pipe(z.union([z.literal(""), z.email({ error: EMAIL })])).optional().nullable(),
  code: text({ label: "The referral code", max: 32, missing: CODE, wrong: CODE, tooLong: CODE })
    .regex(/^[A-Za-z0-9_-]{3,32}$/, { error: CODE }).toUpperCase(),
  share_percent: text({ label: "The revenue share", max: 6, missing: SHARE, wrong: SHARE, tooLong: SHARE })
    .regex(/^\d{1,3}(\.\d{1,2})?$/, { error: SHARE })
    .refine((p) => bpsOfPercent(p) <= 10_000, { error: SHARE }),
});

export const partnerRow = z.object({
  id: z.number(),
  name: z.string(),
  email: z.string().nullable(),
  code: z.string(),
  /** The share of their customers' fee and markup income, in basis points (1% = 100). */
  share_bps: z.number(),
  /** The same as a percentage with two decimals ("12.50"). */
  share_percent: z.string(),
  /** How many customers the partner brought. */
  customers: z.number(),
  created_at: timestamp,
  updated_at: timestamp,
});

/** A customer a partner brought. `funded`: their account has ever been credited by a receipt. */
export const partnerCustomer = z.object({
  id: z.number(),
  email: z.string(),
  name: z.string().nullable(),
  type: z.enum(["Personal", "Business"]),
  signed_up_at: timestamp,
  account_ref: z.string().nullable(),
  funded: z.boolean(),
});

export const listPartners = defineCall({
  method: "GET",
  path: "/console/partners",
  summary: "Every partner with their referral code, revenue share and how many customers they brought.",
  guards: CONSOLE_GUARDS,
  answer: z.array(partnerRow),
});

export const createPartner = defineCall({
  method: "POST",
  path: "/console/partners",
  summary:
    "Creates a partner with a referral code and a revenue share in percent (kept as basis points); 409 for a code in use.",
  guards: CONSOLE_GUARDS,
  body: partnerInput,
  answer: partnerRow,
  status: 201,
});

export const getPartner = defineCall({
  method: "GET",
  path: "/console/partners/:id",
  summary: "One partner with a page of the customers they brought, newest first (page, per_page).",
  guards: CONSOLE_GUARDS,
  params: z.object({ id: idText }),
  query: z.object({ ...pageQuery }),
  answer: partnerRow.extend({ customer_list: pageOf(partnerCustomer) }),
});

export const updatePartner = defineCall({
  method: "PUT",
  path: "/console/partners/:id",
  summary:
    "Changes a partner's name, email, referral code or share; their customers stay theirs. 409 for a code in use.",
  guards: CONSOLE_GUARDS,
  params: z.object({ id: idText }),
  body: partnerInput,
  answer: partnerRow,
});

const PARTNER_ID = "partner_id is the id of a partner, or null for none.";

export const setCustomerPartner = defineCall({
  method: "PUT",
  path: "/console/users/:id/partner",
  summary:
    "Makes a customer a partner's (one who registered without the code, or with the wrong one), or nobody's with null; their commission counts from then on.",
  guards: CONSOLE_GUARDS,
  params: z.object({ id: idText }),
  body: z.object({ partner_id: idValue(PARTNER_ID).nullable() }),
  answer: z.object({ id: z.number(), partner_id: z.number().nullable(), partner: z.string().nullable() }),
});

/** Who a referral code belongs to: a partner, a customer (their account_ref), or nobody known. */
export const codeOwner = z.object({
  kind: z.enum(["partner", "customer", "unknown"]),
  /** The partner's id, or the customer's user id; null for an unknown code. */
  id: z.number().nullable(),
  name: z.string().nullable(),
});

export const affiliateRow = z.object({
  code: z.string(),
  owner: codeOwner,
  /** Customers who registered with the code, ever. */
  signups: z.number(),
  /** Of those, how many have been funded. */
  funded: z.number(),
});

export const listAffiliates = defineCall({
  method: "GET",
  path: "/console/affiliates",
  summary:
    "Every referral code: the partners' codes and the codes customers typed at registration, with who owns each and its sign-ups.",
  guards: CONSOLE_GUARDS,
  answer: z.array(affiliateRow),
});

/** A period of whole days (UTC): the 30 days up to today unless given. */
export const periodQuery = profitQuery.pick({ from: true, to: true });

export const referralRow = z.object({
  /** The code the customer typed at sign-up (in capitals): a fact of the sign-up, never rewritten. */
  code: z.string(),
  /** Whose that code is now. */
  owner: codeOwner,
  customer: partnerCustomer,
  /** The partner the customer is with now (decision 062), which may be another code's or none. */
  partner: z.object({ id: z.number(), name: z.string() }).nullable(),
});

export const commissionRow = z.object({
  partner_id: z.number(),
  partner: z.string(),
  code: z.string(),
  share_bps: z.number(),
  /** The currency of the income: what the customers sold. */
  currency: currencyCode,
  markup: amountText,
  fees: amountText,
  /** markup + fees of the partner's customers in the period. */
  income: amountText,
  /** income × share, rounded half away from zero to the currency's minor unit. */
  commission: amountText,
});

export const listReferrals = defineCall({
  method: "GET",
  path: "/console/referrals",
  summary:
    "A page of who signed up with a referral code in the period (page, per_page), and each partner's commission: their share in force at each movement's time of the fee and markup income of their customers, from the ledger.",
  guards: CONSOLE_GUARDS,
  query: periodQuery.extend(pageQuery),
  answer: z.object({
    from: z.string(),
    to: z.string(),
    referrals: pageOf(referralRow),
    commissions: z.array(commissionRow),
  }),
});

export const attributionRow = z.object({
  signups: z.number(),
  /** Of those, how many have been funded (an account ever credited by a receipt). */
  funded: z.number(),
});

export const listAttributions = defineCall({
  method: "GET",
  path: "/console/attributions",
  summary:
    "Sign-ups in the period by utm source, medium and campaign and by referrer's site, with how many became funded accounts.",
  guards: CONSOLE_GUARDS,
  query: periodQuery,
  answer: z.object({
    from: z.string(),
    to: z.string(),
    signups: z.number(),
    funded: z.number(),
    by_campaign: z.array(attributionRow.extend({
      utm_source: z.string().nullable(),
      utm_medium: z.string().nullable(),
      utm_campaign: z.string().nullable(),
    })),
    by_referrer: z.array(attributionRow.extend({ referrer: z.string().nullable() })),
  }),
});
