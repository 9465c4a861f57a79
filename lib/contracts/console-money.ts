/**
 * The administrators' money calls (DESIGN.md sections 4 and 5): rates, pricing plans, a
 * customer's fee overrides, and receipts of money that arrived in the company's bank accounts.
 *
 * The rules of what an administrator may send are written here once, as zod schemas, with the
 * words the console shows next to the field they name ("rates.USD", "tiers.1.up_to",
 * "fees.GBP.regular"). Where a rule is the money code's (the currencies we support, their decimal
 * places) it comes from lib/money/, which the server's money code uses too.
 */
import Big from "big.js";
import { z } from "zod";
import { formatMinor, readAmount } from "../money/amounts.ts";
import { CURRENCY_CODES, type CurrencyCode, describe, isCurrency } from "../money/currencies.ts";
import { amountText, currencyCode, idText, text } from "./common.ts";
import { defineCall } from "./define.ts";
import { CONSOLE_GUARDS } from "./guards.ts";
import { ratesAnswer } from "./money.ts";
import { sessionUser } from "./session-user.ts";
import { RECEIPT_STATUSES } from "../money/receipts.ts";
import { PAYMENT_STATUSES } from "../payments/statuses.ts";

/** "The base "XYZ" is not a currency we support.", or, when no code was given, what to give. */
function currencyProblem(what: string, input: unknown): string {
  if (input === undefined) return `${what} is required: a currency code such as GBP.`;
  return typeof input === "string"
    ? `${what} ${describe(input)} is not a currency we support.`
    : `${what} must be a currency code such as GBP.`;
}

/** A record's id in the path. */
const byId = z.object({ id: idText });

/** An issue added by a refinement: its words, and the field it is about below the refined value. */
const problem = (message: string, path: PropertyKey[] = []) => ({ code: "custom" as const, message, path });

/** Refuses the keys of an object that are not currencies we support, each at its own path. */
function onlyCurrencies(value: Record<string, unknown>, ctx: z.RefinementCtx) {
  for (const code of Object.keys(value)) {
    if (!isCurrency(code)) ctx.addIssue(problem(`${describe(code)} is not a currency we support.`, [code]));
  }
}

/** An object with an entry per currency we support, as `entry` says (optional or not); other keys are refused. */
function byCurrency<S extends z.ZodType>(entry: (code: CurrencyCode) => S, error: string) {
  const shape = Object.fromEntries(CURRENCY_CODES.map((code) => [code, entry(code)])) as Record<CurrencyCode, S>;
  return z.looseObject(shape, { error }).superRefine(onlyCurrencies);
}

// ---------------------------------------------------------------------------------------------
// Rates

/** The longest rate string an administrator may send, and its largest value. */
const MAX_RATE_LENGTH = 32;
const MAX_RATE = new Big("1e12");
const DECIMAL = /^\d+(?:\.\d+)?$/;

/**
 * One rate: a plain positive decimal string, answered in plain normalised notation ("01.50" →
 * "1.5"). `what` names it in messages ("The rate of USD", "The ECB rate of USD"). The ECB's feed
 * (server/money/ecb.ts) checks its rates with it too.
 */
export function rateValue(what: string) {
  const plain = `${what} must be a plain positive decimal such as "1.0823".`;
  return z.string({ error: `${what} must be written as a decimal string such as "1.0823".` })
    .trim()
    .max(MAX_RATE_LENGTH, { error: plain, abort: true })
    .regex(DECIMAL, { error: plain, abort: true })
    .refine((s) => new Big(s).gt(0), { error: `${what} must be more than zero.`, abort: true })
    .refine((s) => new Big(s).lte(MAX_RATE), { error: `${what} is too large.` })
    .transform((s) => new Big(s).toFixed());
}

/**
 * An administrator's rate table: a supported base, the date the rates are for (today when left
 * out), and positive decimal rates of supported currencies against the base. The base's own rate
 * may be left out (it is "1"); when given it must be exactly 1. At least one other currency is
 * required. Answered normalised, the base's rate included, in the order of the currency list.
 * `confirm_changes` names the currencies whose large moves the administrator confirms (the
 * server refuses an unconfirmed move of more than RATE_CONFIRM_SHARE, listing each one).
 */
export const rateTableUpdate = z.object({
  base: z.enum(CURRENCY_CODES, { error: (iss) => currencyProblem("The base", iss.input) }),
  as_of: z.iso.date({ error: "as_of must be a date written YYYY-MM-DD." }).optional(),
  rates: byCurrency(
    (code) => rateValue(`The rate of ${code}`).optional(),
    "rates must be an object of currency codes and decimal strings.",
  ),
  confirm_changes: z.array(
    z.enum(CURRENCY_CODES, { error: (iss) => `${describe(iss.input)} is not a currency we support.` }),
    { error: 'confirm_changes must be a list of currency codes, such as ["GBP"].' },
  ).max(CURRENCY_CODES.length, { error: "confirm_changes names each currency once." }).default([]),
}, { error: "The rates must be an object with base, as_of and rates." })
  .superRefine(({ base, rates }, ctx) => {
    const own = rates[base];
    if (own !== undefined && !new Big(own).eq(1)) {
      ctx.addIssue(problem(`The rate of ${base}, the base, must be 1.`, ["rates", base]));
    } else if (!CURRENCY_CODES.some((code) => code !== base && rates[code] !== undefined)) {
      ctx.addIssue(problem("Give the rate of at least one currency besides the base.", ["rates"]));
    }
  })
  .transform(({ base, as_of, rates, confirm_changes }) => {
    const table: Record<string, string> = {};
    for (const code of CURRENCY_CODES) {
      const rate = code === base ? "1" : rates[code];
      if (rate !== undefined) table[code] = rate;
    }
    return { base, as_of, rates: table, confirm_changes };
  });

export type RateTableUpdate = z.output<typeof rateTableUpdate>;

export const updateRates = defineCall({
  method: "PUT",
  path: "/console/rates",
  summary:
    "Makes an administrator's rates current; currencies the update leaves out keep their rates; large moves need confirm_changes.",
  guards: CONSOLE_GUARDS,
  body: rateTableUpdate,
  answer: ratesAnswer,
});

// ---------------------------------------------------------------------------------------------
// Pricing plans

/** The largest markup of a tier, in basis points (1000 = 10%), and the most tiers a plan has. */
const MAX_BPS = 1000;
const MAX_TIERS = 20;

/** "Tier 2" for the issue of a tier's field: tiers are counted from 1 where people read them. */
const tierOfField = (iss: { path?: PropertyKey[] }) => `Tier ${Number(iss.path?.at(-2)) + 1}`;
const tierOfItem = (iss: { path?: PropertyKey[] }) => `Tier ${Number(iss.path?.at(-1)) + 1}`;

const bpsProblem = (iss: { path?: PropertyKey[] }) =>
  `${tierOfField(iss)}'s bps must be a whole number from 0 to ${MAX_BPS}.`;

/** A tier as sent; its up_to is read in the plan's tier currency (tierBounds). */
const tierInput = z.object({
  up_to: text({
    label: "A tier's up_to",
    max: 32,
    min: 0,
    wrong: `A tier's up_to is a decimal string such as "1000.00", or null for the last tier.`,
  }).nullish(),
  bps: z.int({ error: bpsProblem }).min(0, { error: bpsProblem }).max(MAX_BPS, { error: bpsProblem }),
}, { error: (iss) => `${tierOfItem(iss)} must be an object with up_to and bps.` });

/** A fee as sent: a decimal string with at most its currency's digits, answered with exactly them. */
function feeValue(code: CurrencyCode, kind: "regular" | "priority") {
  return z.string({ error: `The ${kind} ${code} fee must be a decimal string in ${code}.` }).transform((text, ctx) => {
    const reading = readAmount(code, text);
    if (reading.problem === undefined) return formatMinor(code, reading.minor);
    ctx.addIssue(problem(`The ${kind} ${code} fee: ${reading.problem}`));
    return z.NEVER;
  });
}

const NAME_PROBLEM = "The plan needs a name of at most 100 characters.";

/**
 * The bounds of a plan's tiers, read in its tier currency and written with exactly its digits: every
 * tier but the last has an up_to, the last is open (null), and the bounds rise strictly from above
 * zero. Null, with the first problem added to `ctx`, when they do not.
 */
function tierBounds(tierCurrency: CurrencyCode, tiers: { up_to?: string | null }[], ctx: z.RefinementCtx) {
  const bounds: (string | null)[] = [];
  let previous = 0;
  for (const [i, tier] of tiers.entries()) {
    const n = i + 1;
    const refuse = (message: string) => {
      ctx.addIssue(problem(message, ["tiers", i, "up_to"]));
      return null;
    };
    const open = tier.up_to === null || tier.up_to === undefined;
    if (i === tiers.length - 1) {
      if (!open) return refuse("The last tier must be open: its up_to is null.");
      bounds.push(null);
      break;
    }
    if (open) return refuse(`Only the last tier may be open; tier ${n} needs an up_to.`);
    const reading = readAmount(tierCurrency, tier.up_to);
    if (reading.problem !== undefined) return refuse(`Tier ${n}'s up_to: ${reading.problem}`);
    if (reading.minor <= previous) {
      return refuse(
        i === 0 ? "Tier 1's up_to must be more than zero." : `Tier ${n}'s up_to must be more than tier ${i}'s.`,
      );
    }
    previous = reading.minor;
    bounds.push(formatMinor(tierCurrency, reading.minor));
  }
  return bounds;
}

/**
 * A pricing plan as an administrator writes it: a name, the currency its tiers are measured in
 * (GBP unless given), its tiers of up_to and bps, and a regular and a priority fee for every
 * supported currency, so that any currency can be sold. Answered normalised: the name trimmed,
 * bounds and fees with exactly their currency's digits ("1" → "1.00"). The plan's id is in the
 * path, and which plan is the default is not changed by these calls: both are ignored in a body.
 */
export const planBody = z.object({
  name: text({ label: "The plan's name", max: 100, missing: NAME_PROBLEM, wrong: NAME_PROBLEM }),
  tier_currency: z.enum(CURRENCY_CODES, {
    error: (iss) => currencyProblem("The tier currency", iss.input),
  }).default("GBP"),
  tiers: z.array(tierInput, { error: "The plan needs at least one tier." })
    .min(1, { error: "The plan needs at least one tier." })
    .max(MAX_TIERS, { error: `A plan has at most ${MAX_TIERS} tiers.` }),
  fees: byCurrency(
    (code) =>
      z.object({ regular: feeValue(code, "regular"), priority: feeValue(code, "priority") }, {
        error: `The plan needs a regular and a priority fee for ${code}.`,
      }),
    "The plan needs its fees by currency.",
  ),
}, { error: "A pricing plan must be an object." })
  // The bounds are read in the tier currency, so only once every field is sound.
  .transform(({ name, tier_currency, tiers, fees }, ctx) => {
    const bounds = tierBounds(tier_currency, tiers, ctx);
    if (!bounds) return z.NEVER;
    return {
      name,
      tier_currency,
      tiers: tiers.map((tier, i) => ({ up_to: bounds[i], bps: tier.bps })),
      fees: Object.fromEntries(CURRENCY_CODES.map((code) => [code, fees[code]])) as Record<
        CurrencyCode,
        { regular: string; priority: string }
      >,
    };
  });

export type PlanBody = z.output<typeof planBody>;

/** Puts an account on a plan: the account_ref the customer quotes. */
export const planAssignment = z.object({
  assign_account_ref: text({ label: "The account_ref", max: 32, missing: "Enter the account_ref to put on this plan." })
    .toUpperCase(),
});

/**
 * The body of PUT console/pricingplans/{id}: `{assign_account_ref}` puts an account on the plan,
 * anything else replaces the plan. Chosen by that one key rather than by a zod union, so that a
 * refusal names the fields of what was sent, not "no option matched".
 */
const planChange = z.unknown().transform((input, ctx) => {
  const assigns = typeof input === "object" && input !== null && "assign_account_ref" in input;
  const result = (assigns ? planAssignment : planBody).safeParse(input);
  if (result.success) return result.data;
  for (const issue of result.error.issues) ctx.addIssue({ ...issue, code: "custom" });
  return z.NEVER;
}) as unknown as z.ZodType<
  z.output<typeof planAssignment> | PlanBody,
  z.input<typeof planAssignment> | z.input<typeof planBody>
>;

/** A plan as the console lists it, with the account_refs assigned to it. */
export const pricingPlan = z.object({
  id: z.number(),
  name: z.string(),
  is_default: z.boolean(),
  /** The currency tiers are measured in. */
  tier_currency: currencyCode,
  /** Each tier's inclusive upper bound in the tier currency (null for the last, open one) and markup. */
  tiers: z.array(z.object({ up_to: amountText.nullable(), bps: z.number() })),
  /** Currency code → its regular and priority transfer fees, in that currency. */
  fees: z.record(z.string(), z.object({ regular: amountText, priority: amountText })),
  accounts: z.array(z.string()),
});

export const listPricingPlans = defineCall({
  method: "GET",
  path: "/console/pricingplans",
  summary: "Every pricing plan, with the account_refs on it.",
  guards: CONSOLE_GUARDS,
  answer: z.array(pricingPlan),
});

export const createPricingPlan = defineCall({
  method: "POST",
  path: "/console/pricingplans",
  summary: "A new pricing plan, on no account yet.",
  guards: CONSOLE_GUARDS,
  body: planBody,
  answer: pricingPlan,
  status: 201,
});

export const changePricingPlan = defineCall({
  method: "PUT",
  path: "/console/pricingplans/:id",
  summary: "Replaces a plan, or with {assign_account_ref} puts an account on it.",
  guards: CONSOLE_GUARDS,
  params: byId,
  body: planChange,
  answer: pricingPlan,
});

// ---------------------------------------------------------------------------------------------
// A customer's fee overrides

/** An override fee in `code`: empty or null for none (the plan's fee), else an amount with the currency's digits. */
function overrideFee(code: CurrencyCode, kind: "regular" | "priority") {
  return z.string({ error: `The ${kind} ${code} fee must be a decimal string in ${code}, or empty.` })
    .nullable().optional()
    .transform((text, ctx) => {
      if (text === null || text === undefined || text.trim() === "") return null;
      const reading = readAmount(code, text);
      if (reading.problem === undefined) return formatMinor(code, reading.minor);
      ctx.addIssue(problem(`The ${kind} ${code} fee: ${reading.problem}`));
      return z.NEVER;
    });
}

/**
 * A customer's fee overrides, per currency like a plan's fees (docs/decisions/025): whether they
 * apply, and for each currency that has one, the regular and/or priority fee of a transfer selling
 * it ("fees.GBP.regular"). A currency left out, or a fee left empty, pays the plan's fee. Answered
 * as the session summary keeps them: currency → fee, by kind, null when there are none.
 */
export const feeOverrides = z.object({
  override_transfer_fee: z.boolean({ error: "Say whether the overrides apply (true or false)." }),
  fees: byCurrency(
    (code) =>
      z.object({ regular: overrideFee(code, "regular"), priority: overrideFee(code, "priority") }, {
        error: `The ${code} overrides must be an object with regular and priority.`,
      }).optional(),
    "fees must be an object of currency codes, each with its regular and priority fee.",
  ).default({}),
}, { error: "The fee overrides must be an object with override_transfer_fee and fees." })
  .transform(({ override_transfer_fee, fees }, ctx) => {
    const byKind = (kind: "regular" | "priority") => {
      const entries = CURRENCY_CODES.flatMap((code) => {
        const fee = fees[code]?.[kind];
        return fee ? [[code, fee] as const] : [];
      });
      return entries.length > 0 ? Object.fromEntries(entries) as Record<string, string> : null;
    };
    const regular = byKind("regular");
    const priority = byKind("priority");
    if (override_transfer_fee && !regular && !priority) {
      ctx.addIssue(problem("Give at least one fee when the overrides apply.", ["override_transfer_fee"]));
      return z.NEVER;
    }
    return { override_transfer_fee, override_regular_transfer_fee: regular, override_priority_transfer_fee: priority };
  });

export type FeeOverridesInput = z.output<typeof feeOverrides>;

export const setFeeOverrides = defineCall({
  method: "PUT",
  path: "/console/users/:id/fees",
  summary: "Sets or clears a customer's fee overrides; answers the customer's session summary.",
  guards: CONSOLE_GUARDS,
  params: byId,
  body: feeOverrides,
  answer: sessionUser,
});

// ---------------------------------------------------------------------------------------------
// Receipts

/** Money that arrived, as an administrator records it from the bank statement. */
export const receiptInput = z.object({
  amount: text({ label: "The amount received", max: 64, missing: "Enter the amount received." }),
  currency: text({ label: "The currency", max: 32, missing: "Choose the currency." }).toUpperCase()
    .pipe(z.enum(CURRENCY_CODES, { error: "Choose a currency we support." })),
  payer_name: text({ label: "The payer's name", max: 200, missing: "Enter who sent the money." }),
  reference: text({
    label: "The reference",
    max: 200,
    min: 0,
    missing: "Enter the transfer's reference (it may be empty text).",
  }),
  received_at: z.iso.date({
    error: (iss) =>
      iss.input === undefined
        ? "Enter the date the money arrived."
        : "The date the money arrived is a date like 2026-11-22.",
  }),
});

export type ReceiptInput = z.output<typeof receiptInput>;

const administrator = z.object({ id: z.number(), email: z.string() });

export const receipt = z.object({
  id: z.number(),
  amount: amountText,
  currency: currencyCode,
  payer_name: z.string(),
  reference: z.string(),
  received_at: z.string(),
  /** What each status means: lib/money/receipts.ts. */
  status: z.enum(RECEIPT_STATUSES),
  /** The account its reference named (also while it waits), or the one it was allocated to. */
  account_ref: z.string().nullable(),
  recorded_by: administrator,
  /** The second administrator who approved or released it. */
  approved_by: administrator.nullable(),
  /** The earlier receipt a likely duplicate repeats. */
  duplicate_of: z.number().nullable(),
  /** Who declined, discarded or reversed it, and why. */
  closed_by: administrator.nullable(),
  reason: z.string().nullable(),
  /**
   * The payout this money returns (the beneficiary's bank sent it back, decision 093): never
   * allocated; settled against the payment when the desk fails it.
   */
  returns_payment_id: z.number().nullable(),
  /**
   * That payment's status now: `completed` (marked arrived) means the desk cannot fail it, and the
   * receipt waits until someone asks the bank which is true. Null when it returns no payment.
   */
  returns_payment_status: z.enum(PAYMENT_STATUSES).nullable(),
});

export const recordReceipt = defineCall({
  method: "POST",
  path: "/console/receipts",
  summary: "Records money received; a reference with an account_ref credits that account at once.",
  guards: CONSOLE_GUARDS,
  body: receiptInput,
  answer: receipt,
  status: 201,
});

export const listReceipts = defineCall({
  method: "GET",
  path: "/console/receipts",
  summary: "The latest receipts, newest first, optionally of one status.",
  guards: CONSOLE_GUARDS,
  query: z.object({
    status: z.enum(RECEIPT_STATUSES, { error: `status is one of ${RECEIPT_STATUSES.join(", ")}.` }).optional(),
  }),
  answer: z.array(receipt),
});

export const allocateReceipt = defineCall({
  method: "POST",
  path: "/console/receipts/:id/allocate",
  summary: "Credits an unmatched receipt to an account, once.",
  guards: CONSOLE_GUARDS,
  params: byId,
  body: z.object({
    account_ref: text({ label: "The account_ref", max: 32, missing: "Enter the account_ref to credit." }).toUpperCase(),
  }),
  answer: receipt,
});

const REASON_PROBLEM = "Give the reason (at most 500 characters): it is kept with the receipt.";
/** Why a receipt is declined, discarded or reversed: required, kept with it and in the audit log. */
const withReason = z.object({
  reason: text({
    label: "The reason",
    max: 500,
    missing: REASON_PROBLEM,
    wrong: REASON_PROBLEM,
    tooLong: REASON_PROBLEM,
  }),
}, { error: 'Send the reason as {"reason": "..."}.' });

export const approveReceipt = defineCall({
  method: "POST",
  path: "/console/receipts/:id/approve",
  summary: "A second administrator approves a receipt above the approval amount: it is credited now.",
  guards: CONSOLE_GUARDS,
  params: byId,
  answer: receipt,
});

export const declineReceipt = defineCall({
  method: "POST",
  path: "/console/receipts/:id/decline",
  summary: "Declines a receipt awaiting approval, with a reason: nothing is credited.",
  guards: CONSOLE_GUARDS,
  params: byId,
  body: withReason,
  answer: receipt,
});

export const releaseReceipt = defineCall({
  method: "POST",
  path: "/console/receipts/:id/release",
  summary: "A second administrator releases a receipt held as a likely duplicate: it is credited now.",
  guards: CONSOLE_GUARDS,
  params: byId,
  answer: receipt,
});

export const discardReceipt = defineCall({
  method: "POST",
  path: "/console/receipts/:id/discard",
  summary: "Discards a receipt held as a likely duplicate, with a reason: nothing is credited.",
  guards: CONSOLE_GUARDS,
  params: byId,
  body: withReason,
  answer: receipt,
});

export const reverseReceipt = defineCall({
  method: "POST",
  path: "/console/receipts/:id/reverse",
  summary: "Reverses a credited receipt with reversing entries and a reason; 409 once the money has moved on.",
  guards: CONSOLE_GUARDS,
  params: byId,
  body: withReason,
  answer: receipt,
});

/**
 * What became of each entry of an imported bank statement (decision 046): a credit is `credited`
 * (its reference named one account), `unmatched` (booked on the unallocated funds),
 * `awaiting_approval` or `held_duplicate` (waiting for a second administrator, decision 026),
 * `payout_return` (the bank sent one of our payouts back: held against that payment, never a
 * customer's money, decision 093), or `already_imported` (an earlier import took it: nothing moves). The entries that are not credits
 * to take: `debit_ignored`, `not_booked` (pending or information only), `unsupported_currency`.
 */
export const STATEMENT_ENTRY_RESULTS = [
  "credited",
  "unmatched",
  "awaiting_approval",
  "held_duplicate",
  "payout_return",
  "already_imported",
  "debit_ignored",
  "not_booked",
  "unsupported_currency",
] as const;
export type StatementEntryResult = (typeof STATEMENT_ENTRY_RESULTS)[number];

/** The largest statement file the import takes: a month of a busy account's entries. */
export const STATEMENT_FILE_LIMIT = 5 * 1024 * 1024;

export const statementImport = z.object({
  /** The file's GrpHdr/MsgId. */
  message_id: z.string(),
  statements: z.array(z.object({ id: z.string(), account: z.string(), entries: z.number() })),
  counts: z.object({
    credited: z.number(),
    held_for_approval: z.number(),
    held_as_duplicates: z.number(),
    unmatched: z.number(),
    payout_returns: z.number(),
    duplicates_skipped: z.number(),
    debits_ignored: z.number(),
    others_skipped: z.number(),
  }),
  entries: z.array(z.object({
    result: z.enum(STATEMENT_ENTRY_RESULTS),
    statement_id: z.string(),
    /** The bank's reference of the entry (AcctSvcrRef) and the entry's own (NtryRef). */
    bank_reference: z.string().nullable(),
    entry_reference: z.string().nullable(),
    booking_date: z.string().nullable(),
    /** As the bank wrote it for entries not taken; in the currency's decimals for credits. */
    amount: z.string(),
    currency: z.string(),
    payer_name: z.string().nullable(),
    reference: z.string().nullable(),
    account_ref: z.string().nullable(),
    /** The receipt it became (or, when already imported, became the first time). */
    receipt_id: z.number().nullable(),
    /** The payout a `payout_return` returns. */
    payment_id: z.number().nullable(),
  })),
});
export type StatementImport = z.output<typeof statementImport>;

export const importStatement = defineCall({
  method: "POST",
  path: "/console/receipts/import",
  summary:
    "Imports the bank's statement file (ISO 20022 camt.053.001.02, the XML as the body): each booked credit becomes a receipt, once.",
  guards: CONSOLE_GUARDS,
  textBody: ["application/xml", "text/xml"],
  bodyLimit: STATEMENT_FILE_LIMIT,
  answer: statementImport,
});
