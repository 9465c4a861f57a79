/**
 * The console's bulk emails (issue 11 item 5, decision 050): a subject and a body with merge fields,
 * a segment of the customers, a preview with one customer's data, and the send, done by a
 * background job whose progress and per-recipient states the email's page shows. And the public
 * unsubscribe that every bulk email links to.
 */
import { z } from "zod";
import { isCountryCode } from "../bank-details/countries.ts";
import { isCurrency } from "../money/currencies.ts";
import { calendarDay, idText, idValue, MULTILINE_TEXTS, pageOf, pageQuery, text, timestamp } from "./common.ts";
import { defineCall } from "./define.ts";
import { CONSOLE_GUARDS } from "./guards.ts";

/** What a recipient's mail is at: see db/schema-bulkemails.ts. */
export const BULK_RECIPIENT_STATES = ["pending", "sending", "sent", "failed", "in doubt", "unsubscribed"] as const;
export const BULK_EMAIL_STATUSES = ["draft", "queued", "sending", "done", "failed"] as const;

/**
 * The merge fields a subject or body may hold, written {{name}}: each is replaced by the
 * recipient's value (HTML-escaped in the HTML part). Documented in docs/API.md.
 */
export const MERGE_FIELDS = {
  name: "The customer's name: a person's first and last name, a business's name (their email if none).",
  first_name: "A person's first name, or a business's contact's first name (their name if none).",
  email: "The address the email goes to.",
  account_ref: "The reference of the customer's account (empty when they have none yet).",
} as const;
export type MergeField = keyof typeof MERGE_FIELDS;

const MERGE_PATTERN = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** The merge fields a text names that do not exist ("{{frist_name}}"), for the 422. */
export function unknownMergeFields(value: string): string[] {
  return [...value.matchAll(MERGE_PATTERN)].map((m) => m[1]).filter((name) => !(name in MERGE_FIELDS));
}

/** Refuses a text naming a merge field that does not exist, naming it and the ones that do. */
const mergeFieldsKnown = (label: string) =>
  [
    (value: string) => unknownMergeFields(value).length === 0,
    {
      error: (issue: { input?: unknown }) =>
        `${label} names ${
          unknownMergeFields(String(issue.input)).map((n) => `{{${n}}}`).join(", ")
        }: the merge fields ` +
        `are ${Object.keys(MERGE_FIELDS).map((n) => `{{${n}}}`).join(", ")}.`,
    },
  ] as const;

const day = (field: string) => calendarDay(field, field);

/**
 * Who a bulk email goes to: the customers who match every filter given (all customers when none
 * is). Only customers with a confirmed address who have not unsubscribed are mailed.
 */
const SEGMENT_FILTERS: readonly string[] = [
  "type",
  "country",
  "currency",
  "signed_up_from",
  "signed_up_to",
  "partner_id",
];

export const bulkSegment = z.looseObject({
  type: z.enum(["Personal", "Business"], { error: "type is Personal or Business." }).optional(),
  // A code that exists in no list would make an empty segment look like a choice that worked.
  country: text({ label: "The country", max: 2, wrong: "country is a two-letter ISO code such as GB." })
    .toUpperCase().regex(/^[A-Z]{2}$/, { error: "country is a two-letter ISO code such as GB.", abort: true })
    .refine(isCountryCode, {
      error: (issue) => `country ${String(issue.input)} is not a country we know: a two-letter ISO code such as GB.`,
    })
    .optional(),
  currency: text({ label: "The currency", max: 3, wrong: "currency is a three-letter code such as EUR." })
    .toUpperCase().regex(/^[A-Z]{3}$/, { error: "currency is a three-letter code such as EUR.", abort: true })
    // Not the guard itself: a segment's currency stays a string where stored segments are read.
    .refine((code): boolean => isCurrency(code), {
      error: (issue) => `currency ${String(issue.input)} is not a currency we support: such as EUR.`,
    })
    .optional(),
  signed_up_from: day("signed_up_from").optional(),
  signed_up_to: day("signed_up_to").optional(),
  partner_id: idValue("partner_id is the id of a partner, a whole number from 1.").optional(),
}, { error: "segment is an object of filters; {} is every customer." }).superRefine((segment, ctx) => {
  // A filter misspelled ("contry") is refused by its name: dropped, it left the segment every customer.
  for (const key of Object.keys(segment)) {
    if (!SEGMENT_FILTERS.includes(key)) {
      ctx.addIssue({
        code: "custom",
        path: [key],
        message: `segment has no filter ${key}: the filters are ${SEGMENT_FILTERS.slice(0, -1).join(", ")} and ${
          SEGMENT_FILTERS.at(-1)
        }.`,
      });
    }
  }
}).refine(
  (s) => !s.signed_up_from || !s.signed_up_to || s.signed_up_from <= s.signed_up_to,
  { error: "signed_up_to cannot be before signed_up_from.", path: ["signed_up_to"] },
);
export type BulkSegment = z.output<typeof bulkSegment>;

export const bulkEmail = z.object({
  id: z.number(),
  subject: z.string(),
  body: z.string(),
  segment: z.object({
    type: z.enum(["Personal", "Business"]).optional(),
    country: z.string().optional(),
    currency: z.string().optional(),
    signed_up_from: z.string().optional(),
    signed_up_to: z.string().optional(),
    partner_id: z.number().optional(),
  }),
  /** The segment in words: "Business customers in GB holding EUR". */
  segment_text: z.string(),
  status: z.enum(BULK_EMAIL_STATUSES),
  created_at: timestamp,
  created_by: z.string(),
  sent_at: timestamp.nullable(),
  sent_by: z.string().nullable(),
  finished_at: timestamp.nullable(),
  rate_per_second: z.number().nullable(),
  counts: z.object({
    total: z.number(),
    pending: z.number(),
    sending: z.number(),
    sent: z.number(),
    failed: z.number(),
    in_doubt: z.number(),
    unsubscribed: z.number(),
  }),
  /** The send job's progress bar: recipients handled of all. */
  progress: z.object({ done: z.number(), total: z.number() }).nullable(),
  error: z.string().nullable(),
});
export type BulkEmail = z.output<typeof bulkEmail>;

export const bulkRecipient = z.object({
  id: z.number(),
  user_id: z.number(),
  email: z.string(),
  state: z.enum(BULK_RECIPIENT_STATES),
  error: z.string().nullable(),
  updated_at: timestamp,
});

const byId = z.object({ id: idText });

/** The body takes line breaks: its refinement is a schema of its own, so it is marked multi-line again. */
const bodyText = text({ label: "The body", max: 20_000, multiline: true }).refine(...mergeFieldsKnown("The body"));
MULTILINE_TEXTS.add(bodyText);

/** What an administrator writes: the same for a new draft and for its correction. */
const draftBody = z.object({
  subject: text({ label: "The subject", max: 200 }).refine(...mergeFieldsKnown("The subject")),
  body: bodyText,
  segment: bulkSegment.optional().default({}),
});

export const createBulkEmail = defineCall({
  method: "POST",
  path: "/console/bulkemails",
  summary: "Saves a bulk email as a draft: its subject, its body (merge fields {{name}}, {{first_name}}, {{email}}, " +
    "{{account_ref}}) and its segment. Nobody is mailed until it is sent.",
  guards: CONSOLE_GUARDS,
  body: draftBody,
  answer: bulkEmail,
  status: 201,
});

export const updateBulkEmail = defineCall({
  method: "PUT",
  path: "/console/bulkemails/:id",
  summary: "Corrects a draft: its subject, body and segment, as the create takes them. 409 once it was sent.",
  guards: CONSOLE_GUARDS,
  params: byId,
  body: draftBody,
  answer: bulkEmail,
});

export const deleteBulkEmail = defineCall({
  method: "DELETE",
  path: "/console/bulkemails/:id",
  summary: "Deletes a draft: nobody was mailed, nothing of it is kept but its audit entry. 409 once it was sent.",
  guards: CONSOLE_GUARDS,
  params: byId,
  answer: z.object({ deleted: z.literal(true) }),
});

export const listBulkEmails = defineCall({
  method: "GET",
  path: "/console/bulkemails",
  summary: "The bulk emails, newest first, with their counts.",
  guards: CONSOLE_GUARDS,
  query: z.object(pageQuery),
  answer: pageOf(bulkEmail),
});

export const getBulkEmail = defineCall({
  method: "GET",
  path: "/console/bulkemails/:id",
  summary:
    "One bulk email with its counts, its send's progress and a page of its recipients (of one state if asked); " +
    "a draft answers how many customers its segment holds now.",
  guards: CONSOLE_GUARDS,
  params: byId,
  query: z.object({
    ...pageQuery,
    state: z.enum(BULK_RECIPIENT_STATES, { error: `state is one of ${BULK_RECIPIENT_STATES.join(", ")}.` })
      .optional(),
  }),
  answer: bulkEmail.extend({ recipients: pageOf(bulkRecipient), segment_size: z.number() }),
});

export const previewBulkEmail = defineCall({
  method: "GET",
  path: "/console/bulkemails/:id/preview",
  summary: "The bulk email as one customer would receive it, with their data in the merge fields: user_id's, or " +
    "the first customer of the segment's. Its unsubscribe link is a sample that unsubscribes nobody.",
  guards: CONSOLE_GUARDS,
  params: byId,
  query: z.object({ user_id: idText.optional() }),
  answer: z.object({
    user_id: z.number(),
    to: z.string(),
    in_segment: z.boolean(),
    subject: z.string(),
    html: z.string(),
    text: z.string(),
  }),
});

export const sendBulkEmail = defineCall({
  method: "POST",
  path: "/console/bulkemails/:id/send",
  summary: "Sends a draft to its segment as it is now (the recipients are fixed then), by a background job at the " +
    "configured rate; 409 when it was sent already or its segment is empty. Answers 202 with the email.",
  guards: CONSOLE_GUARDS,
  params: byId,
  answer: bulkEmail,
  status: 202,
});

export const sendToInDoubt = defineCall({
  method: "POST",
  path: "/console/bulkemails/:id/send-in-doubt",
  summary: "Sends the bulk email to its recipients in doubt (a crash came after their mail was handed to SMTP " +
    "and before its answer was recorded): they are put back to be sent by the job, and those the mail server " +
    "had accepted receive it twice. 409 when nobody is in doubt. Answers 202 with the email.",
  guards: CONSOLE_GUARDS,
  params: byId,
  answer: bulkEmail,
  status: 202,
});

export const unsubscribe = defineCall({
  method: "POST",
  path: "/unsubscribe",
  summary: "Withdraws the marketing consent of the customer a bulk email's unsubscribe link names (no sign-in: " +
    "the token is signed). Later bulk emails skip them; the portal's other emails still reach them.",
  guards: [],
  body: z.object({
    token: text({ label: "The link", max: 500, missing: "The link is incomplete: open it from the email again." }),
  }),
  answer: z.object({ email: z.string(), unsubscribed_at: timestamp }),
});
