/**
 * Recipients (DESIGN.md section 4, issue 8): the bank details a recipient has, what a customer
 * sends to save one, and what a currency and country require. The payload's refinement runs the
 * requirements table's rules (lib/bank-details/), so a refused field comes back in the 422 by its
 * path ("details.iban"); the server adds the UK modulus check (server/recipients/bank-details.ts).
 * A recipient belongs to the current account: another account's is a 404, as is a deleted one.
 */
import { z } from "zod";
import { checkBankDetails } from "../bank-details/checks.ts";
import { DETAIL_KEYS, RULE_NAMES } from "../bank-details/formats.ts";
import { requirementsFor, SCHEMES } from "../bank-details/requirements.ts";
import { currencyCode, currencyInput, idText, pageOf, pageQuery, text, timestamp } from "./common.ts";
import { defineCall } from "./define.ts";
import { CUSTOMER_GUARDS } from "./guards.ts";

/** One bank detail as typed: spaces and dashes are allowed, the rules tidy them. */
const detailText = (label: string) =>
  text({ label, max: 64, min: 0, wrong: "Each bank detail is text.", tooLong: "That is too long for a bank detail." })
    .optional();

/** A recipient's bank details: which of them are needed depends on the currency and the country. */
export const recipientDetails = z.object({
  iban: detailText("The IBAN"),
  bic: detailText("The BIC"),
  sort_code: detailText("The sort code"),
  account_number: detailText("The account number"),
  routing_number: detailText("The routing number"),
  account_type: detailText("The account type"),
  ifsc: detailText("The IFSC"),
  bsb: detailText("The BSB"),
  transit_number: detailText("The transit number"),
  institution_number: detailText("The institution number"),
}, { error: "Give the recipient's bank details." });

export type RecipientDetails = z.output<typeof recipientDetails>;

/** The country of the recipient's bank, as an ISO 3166 code ("FR"). */
export const bankCountryInput = text({
  label: "The country of the recipient's bank",
  max: 64,
  // Empty is refused by the requirements table, with the words the form shows.
  min: 0,
  missing: "Choose the country of the recipient's bank.",
}).toUpperCase();

/** Whether the recipient is a person or a business. */
export const RECIPIENT_TYPES = ["person", "business"] as const;

const recipientFields = z.object({
  name: text({
    label: "The recipient's name",
    max: 70,
    missing: "Enter the recipient's name.",
    tooLong: "Use at most 70 characters for the name: a SEPA payment carries no more.",
  }),
  type: z.enum(RECIPIENT_TYPES, { error: "Choose whether the recipient is a person or a business." }),
  currency: currencyInput("Choose the currency the recipient receives."),
  country: bankCountryInput,
  email: text({
    label: "The recipient's email address",
    max: 254,
    min: 0,
    wrong: "Enter a valid email address, or leave it empty.",
    // null is no email, as absent or "": the answer says null, and a client sends its answer back.
  }).toLowerCase().optional().nullable().transform((email) => email || undefined).pipe(
    z.email({ error: "Enter a valid email address, or leave it empty." }).optional(),
  ),
  details: recipientDetails,
});

/** Where a recipient's bank details are checked: once the currency, country and details are readable. */
const BANK_INPUTS = ["currency", "country", "details"];

/**
 * What a customer sends to add or change a recipient. Every refused field is reported at once (the
 * name's problems with the IBAN's); the output has the details tidied (spaces and dashes out,
 * letters capitalised) and only those the currency and country use.
 */
export const recipientPayload = recipientFields.superRefine((recipient, ctx) => {
  const found = requirementsFor(recipient.currency, recipient.country);
  if (!found.ok) {
    ctx.addIssue({ code: "custom", path: [found.field], message: found.message });
    return;
  }
  const { problems } = checkBankDetails(found.requirement, recipient.details);
  for (const key of DETAIL_KEYS) {
    const message = problems[key];
    if (message) ctx.addIssue({ code: "custom", path: ["details", key], message });
  }
}, {
  // A body that is not an object at all has nothing to check either (its issue has no path).
  when: ({ issues }) => !issues.some((issue) => !issue.path?.length || BANK_INPUTS.includes(String(issue.path[0]))),
}).transform((recipient) => {
  const found = requirementsFor(recipient.currency, recipient.country);
  // Only reached when the refinement found nothing, so the pair is payable.
  return found.ok
    ? { ...recipient, details: checkBankDetails(found.requirement, recipient.details).details }
    : recipient;
});

export type RecipientPayload = z.output<typeof recipientPayload>;

/** A bank-detail field a currency and country need, as the form draws it. */
export const requirementField = z.object({
  key: z.enum(DETAIL_KEYS),
  /** Which rule checks it (lib/bank-details/formats.ts): islands check with the same one. */
  rule: z.enum(RULE_NAMES),
  label: z.string(),
  example: z.string(),
  hint: z.string(),
  required: z.boolean(),
  /** What the value must match once spaces and dashes are out and letters capitalised, unanchored. */
  pattern: z.string(),
  options: z.array(z.object({ value: z.string(), label: z.string() })).optional(),
});

export const requirementsAnswer = z.object({
  currency: currencyCode,
  country: z.string(),
  scheme: z.enum(SCHEMES),
  scheme_name: z.string(),
  /** The bank countries this currency can be paid to. */
  countries: z.array(z.string()),
  fields: z.array(requirementField),
});

export const getRecipientRequirements = defineCall({
  method: "GET",
  path: "/account/recipients/requirements",
  summary: "The bank details a recipient needs for a currency and their bank's country (the currency's home country " +
    "when none is given): labels, examples, hints, whether each is required, and its rule.",
  guards: CUSTOMER_GUARDS,
  permission: "account.view",
  query: z.object({
    currency: currencyInput("Choose the currency the recipient receives."),
    country: bankCountryInput.optional().transform((country) => country || undefined),
  }).superRefine((query, ctx) => {
    const found = requirementsFor(query.currency, query.country);
    if (!found.ok) ctx.addIssue({ code: "custom", path: [found.field], message: found.message });
  }),
  answer: requirementsAnswer,
});

/** A recipient's bank details as stored: tidied, only those its currency and country use. */
export const storedDetails = z.partialRecord(z.enum(DETAIL_KEYS), z.string());

/** A recipient as the calls answer it. */
export const recipientAnswer = z.object({
  id: z.number(),
  name: z.string(),
  type: z.enum(RECIPIENT_TYPES),
  currency: currencyCode,
  /** The country of the recipient's bank. */
  country: z.string(),
  email: z.string().nullable(),
  details: storedDetails,
  /**
   * How a payment reaches the bank (the payout rail; lib/bank-details/requirements.ts), or null
   * when we no longer pay this currency to this country (the recipient cannot be paid).
   */
  scheme: z.enum(SCHEMES).nullable(),
  scheme_name: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
  /** When the bank details last changed; their creation counts. */
  details_changed_at: timestamp,
});

export type RecipientAnswer = z.output<typeof recipientAnswer>;

/** What a change record keeps of the recipient: the fields that changed, before or after. */
export const recipientValues = z.object({
  name: z.string().optional(),
  type: z.enum(RECIPIENT_TYPES).optional(),
  currency: z.string().optional(),
  country: z.string().optional(),
  email: z.string().nullable().optional(),
  details: storedDetails.optional(),
});

export type RecipientValues = z.output<typeof recipientValues>;

export const RECIPIENT_CHANGE_KINDS = ["created", "details", "name", "deleted"] as const;

/**
 * One change of a recipient: created; its bank details changed; its name, type or email changed
 * (`name`); deleted. Who made it, and the administrator when it was made on the customer's behalf.
 */
export const recipientChange = z.object({
  id: z.number(),
  kind: z.enum(RECIPIENT_CHANGE_KINDS),
  at: timestamp,
  /** The user of the account who made it (or for whom an administrator made it). */
  by: z.string(),
  /** The administrator who made it on the customer's behalf, else null. */
  on_behalf_by: z.string().nullable(),
  before: recipientValues.nullable(),
  after: recipientValues.nullable(),
});

export type RecipientChange = z.output<typeof recipientChange>;

/** A recipient with its history, newest change first. */
export const recipientWithHistory = recipientAnswer.extend({ changes: z.array(recipientChange) });

const recipientId = z.object({ id: idText });

export const listRecipients = defineCall({
  method: "GET",
  path: "/account/recipients",
  summary: "The account's recipients (not deleted), by name; `search` keeps those whose name contains it.",
  guards: CUSTOMER_GUARDS,
  permission: "account.view",
  query: z.object({
    search: text({
      label: "The search",
      max: 70,
      min: 0,
      wrong: "Search with some text.",
      tooLong: "Search with at most 70 characters.",
    }).optional(),
    ...pageQuery,
  }),
  answer: pageOf(recipientAnswer),
});

export const addRecipient = defineCall({
  method: "POST",
  path: "/account/recipients",
  summary: "Saves a recipient of the account with bank details that fit its currency and bank country.",
  guards: CUSTOMER_GUARDS,
  movesMoney: false,
  permission: "recipients.manage",
  body: recipientPayload,
  answer: recipientWithHistory,
  status: 201,
});

export const getRecipient = defineCall({
  method: "GET",
  path: "/account/recipients/:id",
  summary: "One recipient of the account, with the history of its changes.",
  guards: CUSTOMER_GUARDS,
  permission: "account.view",
  params: recipientId,
  answer: recipientWithHistory,
});

export const changeRecipient = defineCall({
  method: "PUT",
  path: "/account/recipients/:id",
  summary: "Changes a recipient's name, type, email or bank details (each change recorded); its currency and " +
    "bank country cannot change: that is a new recipient.",
  guards: CUSTOMER_GUARDS,
  movesMoney: false,
  permission: "recipients.manage",
  params: recipientId,
  body: recipientPayload,
  answer: recipientWithHistory,
});

export const deleteRecipient = defineCall({
  method: "DELETE",
  path: "/account/recipients/:id",
  summary: "Deletes a recipient: it is no longer listed or paid; payments made to it keep what they paid.",
  guards: CUSTOMER_GUARDS,
  movesMoney: false,
  permission: "recipients.manage",
  params: recipientId,
  answer: z.object({ id: z.number(), deleted: z.literal(true) }),
});
