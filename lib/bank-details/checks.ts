/**
 * Checks a recipient's bank details against what their currency and country require (the answer of
 * GET account/recipients/requirements, or requirementsFor on the server): the same function in the
 * browser while the customer types and on the server before anything is saved.
 */
import { type DetailKey, detailProblem, type RuleName, tidyDetail } from "./formats.ts";

/** What the checks need of a requirement: the bank's country and each field's rule. */
export interface CheckedFields {
  country: string;
  fields: readonly { key: DetailKey; rule: RuleName; required: boolean }[];
}

/** Bank details as stored: tidied, and only the fields the requirement has. */
export type BankDetails = Partial<Record<DetailKey, string>>;

export interface CheckResult {
  details: BankDetails;
  /** Each refused field with why, in the customer's words; empty when every field is accepted. */
  problems: Partial<Record<DetailKey, string>>;
}

/**
 * Tidies and checks each field the requirement lists. Fields it does not list are left out of the
 * result (a form that switched currency may still send them); an empty optional field is absent.
 */
export function checkBankDetails(requirement: CheckedFields, typed: Readonly<Record<string, unknown>>): CheckResult {
  const details: BankDetails = {};
  const problems: Partial<Record<DetailKey, string>> = {};
  for (const { key, rule, required } of requirement.fields) {
    const raw = typed[key];
    const text = typeof raw === "string" ? raw : "";
    if (tidyDetail(rule, text) === "" && !required) continue;
    const problem = detailProblem(rule, text, requirement.country);
    if (problem) problems[key] = problem;
    else details[key] = tidyDetail(rule, text);
  }
  return { details, problems };
}
