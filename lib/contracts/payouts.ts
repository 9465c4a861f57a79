/**
 * The payout desk (issue 8 item 7; decision 031): the administrators' queues of payments to send
 * (/console/local: SEPA, Faster Payments, ACH and the other local rails; /console/transfer: SWIFT),
 * what they do with each (submit to its rail, mark it arrived, fail it with a reason), and the
 * SEPA files that send approved EUR payments in one upload to the company's bank.
 */
import { z } from "zod";
import { CURRENCY_CODES, describe } from "../money/currencies.ts";
import { PAYOUT_RAILS } from "../payments/rails.ts";
import { PAYMENT_STATUSES } from "../payments/statuses.ts";
import { amountText, currencyCode, currencyInput, idText, text, timestamp } from "./common.ts";
import { defineCall } from "./define.ts";
import { CONSOLE_GUARDS } from "./guards.ts";
import { person } from "./payments.ts";

/** The two queues: local rails, or international (SWIFT) transfers. */
export const PAYOUT_QUEUES = ["local", "transfer"] as const;
export type PayoutQueue = (typeof PAYOUT_QUEUES)[number];

/** The statuses the desk works with; without a status, the queue shows the first two. */
export const DESK_STATUSES = ["approved", "submitted", "completed", "failed"] as const;
export type DeskStatus = (typeof DESK_STATUSES)[number];

/** The longest reason a payout fails with (the customer reads it). */
export const MAX_FAIL_REASON = 500;
/** The longest refusal the simulated rail is told to give: "Refused by the rail: " goes before it. */
export const MAX_SIMULATED_REFUSAL = 300;

const byId = z.object({ id: idText });

/** A payment as the payout desk sees it: whose, to whom, how much, and what may be done with it now. */
export const payout = z.object({
  id: z.number(),
  status: z.enum(PAYMENT_STATUSES),
  rail: z.enum(PAYOUT_RAILS),
  rail_kind: z.enum(PAYOUT_QUEUES),
  rail_name: z.string(),
  /** The customer's account the money comes from. */
  customer: z.object({
    account_id: z.number(),
    account_ref: z.string(),
    name: z.string(),
    /** Whoever made the payment, or an owner of the account, is restricted: the desk does not send it. */
    restricted: z.boolean(),
  }),
  created_by: person,
  recipient: z.object({
    name: z.string(),
    type: z.enum(["person", "business"]),
    currency: currencyCode,
    country: z.string(),
    details: z.record(z.string(), z.string()),
  }),
  /** Debited from the customer, the fee included. */
  sell_amount: amountText,
  sell_currency: currencyCode,
  /** What the recipient receives: what the company pays out. */
  buy_amount: amountText,
  buy_currency: currencyCode,
  fee: amountText,
  priority: z.boolean(),
  reference: z.string(),
  created_at: timestamp,
  approved_at: timestamp.nullable(),
  updated_at: timestamp,
  expected_arrival: timestamp,
  /** The SEPA file it was sent in, if any. */
  batch_id: z.number().nullable(),
  /** The rail's reference once the rail has the payment (a SEPA file: its end-to-end id). */
  rail_reference: z.string().nullable(),
  /** Why it failed. */
  reason: z.string().nullable(),
  /**
   * The beneficiary's bank sent it back (decision 093): the receipt of the statement's credit that
   * holds the money, its amount (the bank may keep a charge), the bank's reason, and whether it is
   * settled (the payment failed and its customer was refunded). Null when nothing came back.
   */
  returned: z.object({
    receipt_id: z.number(),
    amount: amountText,
    currency: currencyCode,
    /** The bank's reason code and words ("reason AC04: Account closed"); null if not kept. */
    reason: z.string().nullable(),
    settled: z.boolean(),
  }).nullable(),
  /** What the desk may do with it now; `note` says why Submit is not offered when it is not. */
  actions: z.object({ submit: z.boolean(), complete: z.boolean(), fail: z.boolean(), note: z.string().nullable() }),
});

export const payoutQueue = z.object({
  items: z.array(payout),
  /** How many match, of which `items` holds the first 200. */
  total: z.number(),
  /** The server's time when it answered: ages are counted from it. */
  as_of: timestamp,
  /** The rail that Submit sends these payments to, in words for the desk. */
  rail_note: z.string(),
});

export const listPayouts = defineCall({
  method: "GET",
  path: "/console/payouts",
  summary: "A payout queue: local rails or SWIFT transfers, by status and payout currency.",
  guards: CONSOLE_GUARDS,
  query: z.object({
    rail: z.enum(PAYOUT_QUEUES, { error: "rail is local or transfer." }).optional().default("local"),
    status: z.enum(DESK_STATUSES, { error: "status is approved, submitted, completed or failed." }).optional(),
    currency: currencyInput("Choose a currency.")
      .pipe(z.enum(CURRENCY_CODES, { error: (iss) => `${describe(iss.input)} is not a currency we support.` }))
      .optional(),
    /**
     * One payment only, in any status of the desk unless `status` narrows it: the row an audit
     * entry about the payment links to (routes/pages/console/audit-changes.tsx).
     */
    payment: idText.optional(),
    /**
     * `true`: only payments the bank sent back whose return is not settled yet, in any status of
     * the desk unless `status` narrows it (one marked arrived waits there too).
     */
    returned: z.enum(["true", "false"], { error: "returned is true or false." })
      .transform((value) => value === "true").optional(),
  }),
  answer: payoutQueue,
});

/** What the desk did with a payment; `refused` is the rail's words when it refused the payment at once. */
export const payoutOutcome = z.object({ payment: payout, refused: z.string().nullable() });

export const submitPayout = defineCall({
  method: "POST",
  path: "/console/payouts/:id/submit",
  summary:
    "Sends an approved payment to its rail (pays it out in the ledger first); a rail that refuses it fails it and returns the money.",
  guards: CONSOLE_GUARDS,
  params: byId,
  body: z.object({
    simulate_refusal: text({
      label: "The simulated refusal",
      max: MAX_SIMULATED_REFUSAL,
      min: 0,
      wrong: "simulate_refusal is the refusal's text.",
      tooLong: `The simulated refusal has at most ${MAX_SIMULATED_REFUSAL} characters.`,
    })
      .optional()
      .transform((text) => text || null),
  }, { error: "The body is an object, {} or {simulate_refusal}." }),
  answer: payoutOutcome,
});

export const completePayout = defineCall({
  method: "POST",
  path: "/console/payouts/:id/complete",
  summary: "Marks a sent payment arrived: what the company owed the recipient has left its bank.",
  guards: CONSOLE_GUARDS,
  params: byId,
  answer: payoutOutcome,
});

const REASON = "Say why the payment failed: the customer reads it.";

export const failPayout = defineCall({
  method: "POST",
  path: "/console/payouts/:id/fail",
  summary: "Fails a payment before or after it was sent; the customer gets all their money back.",
  guards: CONSOLE_GUARDS,
  params: byId,
  body: z.object({
    reason: text({
      label: "The reason",
      max: MAX_FAIL_REASON,
      missing: REASON,
      wrong: REASON,
      tooLong: `The reason has at most ${MAX_FAIL_REASON} characters.`,
    }),
  }),
  answer: payoutOutcome,
});

/** A SEPA file: the payments it sent, once. */
export const payoutBatch = z.object({
  id: z.number(),
  scheme: z.enum(["sepa"]),
  /** The file's message id (GrpHdr/MsgId), unique per file. */
  message_id: z.string(),
  currency: currencyCode,
  payment_count: z.number(),
  total: amountText,
  created_by: person,
  created_at: timestamp,
  /** The name the file downloads as. */
  file_name: z.string(),
});

export const createdPayoutBatch = payoutBatch.extend({
  payments: z.array(payout),
  /** Approved SEPA payments the file cannot carry, with why: they stay approved, in no file. */
  left_out: z.array(z.object({ payment_id: z.number(), problems: z.array(z.string()) })),
  /** Names and references written differently in the file (SEPA's character set, its lengths). */
  changes: z.array(z.object({
    payment_id: z.number(),
    field: z.enum(["creditor_name", "remittance"]),
    given: z.string(),
    written: z.string(),
  })),
  /** The debtor is the built-in test account (COMPANY_BANK_* not set): no bank will take this file. */
  test_details: z.boolean(),
});

export const createPayoutBatch = defineCall({
  method: "POST",
  path: "/console/payouts/batches",
  summary: "Sends every approved EUR SEPA payment in no file yet in one new pain.001 file.",
  guards: CONSOLE_GUARDS,
  body: z.object({ scheme: z.enum(["sepa"], { error: 'scheme is "sepa".' }) }),
  answer: createdPayoutBatch,
  status: 201,
});

export const listPayoutBatches = defineCall({
  method: "GET",
  path: "/console/payouts/batches",
  summary: "The latest 100 payout files, newest first.",
  guards: CONSOLE_GUARDS,
  answer: z.array(payoutBatch),
});

export const payoutBatchFile = defineCall({
  method: "GET",
  path: "/console/payouts/batches/:id/file",
  summary: "The batch's pain.001.001.03 XML, as application/xml with its file name (not JSON).",
  guards: CONSOLE_GUARDS,
  params: byId,
  answer: z.string(),
});
