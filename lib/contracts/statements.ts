/**
 * Statements (issue 10, decision 037): a customer asks for one over a period, in one currency or
 * all, as CSV or PDF; a background job makes it (GET account/jobs/{id} shows its progress) and the
 * file stays downloadable for 7 days. Another account's statement is a 404.
 */
import { z } from "zod";
import { CURRENCY_CODES } from "../money/currencies.ts";
import { describe } from "../money/currencies.ts";
import { idText, shownAccountQuery, timestamp } from "./common.ts";
import { defineCall } from "./define.ts";
import { CUSTOMER_GUARDS } from "./guards.ts";
import { customerJob } from "./jobs.ts";

export const STATEMENT_FORMATS = ["csv", "pdf"] as const;

const day = (field: string) => z.iso.date({ error: `${field} must be a date written YYYY-MM-DD.` });

/** What a customer asks for. */
export const statementRequest = z.object({
  currency: z.enum(CURRENCY_CODES, {
    error: (iss) =>
      iss.input === undefined
        ? "Choose a currency, or all currencies (null)."
        : `${describe(iss.input)} is not a currency we support.`,
  }).nullable(),
  from: day("from"),
  to: day("to"),
  format: z.enum(STATEMENT_FORMATS, { error: "Choose the format: csv or pdf." }),
}, { error: "A statement request is an object with currency, from, to and format." });

export type StatementRequest = z.output<typeof statementRequest>;

/** What becomes of a statement: being made, ready to download, failed, or past its 7 days. */
export const STATEMENT_STATES = ["preparing", "ready", "failed", "expired"] as const;

/** A statement as the reports page lists it. */
export const statementView = z.object({
  id: z.number(),
  currency: z.string().nullable(),
  from: z.string(),
  to: z.string(),
  format: z.enum(STATEMENT_FORMATS),
  state: z.enum(STATEMENT_STATES),
  /** The job that makes it: GET account/jobs/{job_id}. Null once the job has been purged. */
  job_id: z.number().nullable(),
  file_name: z.string(),
  /** Where it downloads from, once ready and until it expires; null otherwise. */
  file_url: z.string().nullable(),
  line_count: z.number().nullable(),
  size_bytes: z.number().nullable(),
  created_at: timestamp,
  ready_at: timestamp.nullable(),
  expires_at: timestamp.nullable(),
});

export type StatementView = z.output<typeof statementView>;

export const requestStatement = defineCall({
  method: "POST",
  path: "/account/statements",
  summary:
    "Asks for a statement of the current account (202): its job, whose progress GET account/jobs/{id} answers, and the statement.",
  guards: CUSTOMER_GUARDS,
  movesMoney: false,
  permission: "account.view",
  body: statementRequest,
  status: 202,
  answer: z.object({ job: customerJob, statement: statementView }),
});

export const listStatements = defineCall({
  method: "GET",
  path: "/account/statements",
  summary: "The current account's statements of the last 7 days (being made, ready, or failed), newest first.",
  guards: CUSTOMER_GUARDS,
  permission: "account.view",
  answer: z.object({ items: z.array(statementView) }),
});

export const statementFile = defineCall({
  method: "GET",
  path: "/account/statements/:id/file",
  summary:
    "The statement's file (text/csv or application/pdf, as an attachment); 409 while it is being made, 410 after its 7 days. account_ref: the account the linking page shows (409 account_changed when the session works on another).",
  guards: CUSTOMER_GUARDS,
  permission: "account.view",
  params: z.object({ id: idText }),
  query: z.object(shownAccountQuery),
  answer: z.string(),
});
