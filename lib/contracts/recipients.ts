/**
 * Recipients (DESIGN.md section 4, issue 8): the bank details a recipient has, what a customer
 * sends to save one, and what a currency and country require. The payload's refinement runs the
 * requirements table's rules (lib/bank-details/), so a refused field comes back in the 422 by its
 * path ("details.iban"); the server adds the UK modulus check (server/recipients/bank-details.ts).
 */
import { z } from "zod";
import { checkBankDetails } from "../bank-details/checks.ts";
import { DETAIL_KEYS, RULE_NAMES } from "../bank-details/formats.ts";
import { requirementsFor, SCHEMES } from "../bank-details/requirements.ts";
import { currencyCode, currencyInput } from "./common.ts";
import { defineCall } from "./define.ts";
import { CUSTOMER_GUARDS } from "./guards.ts";

/** One bank detail as typed: spaces and dashes are allowed, the rules tidy them. */
const detailText = z.string({ error: "Each bank detail is text." }).max(64, {
  error: "That is too long for a bank detail.",
})
  .optional();

/** A recipient's bank details: which of them are needed depends on the currency and the country. */
export const recipientDetails = z.object({
  iban: detailText,
  bic: detailText,
  sort_code: detailText,
  account_number: detailText,
  routing_number: detailText,
  account_type: detailText,
  ifsc: detailText,
  bsb: detailText,
  transit_number: detailText,
  institution_number: detailText,
}, { error: "Give the recipient's bank details." });

export type RecipientDetails = z.output<typeof recipientDetails>;

/** The country of the recipient's bank, as an ISO 3166 code ("FR"). */
export const bankCountryInput = z.string({ error: "Choose the country of the recipient's bank." }).trim().toUpperCase();

const recipientFields = z.object({
  name: z.string({ error: "Enter the recipient's name." }).trim()
    .min(1, { error: "Enter the recipient's name." })
    .max(70, { error: "Use at most 70 characters for the name: a SEPA payment carries no more." }),
  type: z.enum(["person", "business"], { error: "Choose whether the recipient is a person or a business." }),
  currency: currencyInput("Choose the currency the recipient receives."),
  country: bankCountryInput,
  email: z.string({ error: "Enter a valid email address, or leave it empty." }).trim().toLowerCase().max(254, {
    error: "Enter a valid email address, or leave it empty.",
  }).optional().transform((email) => email || undefined).pipe(
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
  when: ({ issues }) => !issues.some((issue) => BANK_INPUTS.includes(String(issue.path?.[0]))),
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
