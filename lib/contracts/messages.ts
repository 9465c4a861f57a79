/**
 * Refusals in the product's words, once for every schema (decision 024). A schema that says what
 * is wrong in its own words keeps them; any other problem zod finds (a field missing, a number
 * where text is due, a value out of a list) is turned here into a sentence that names the field
 * by its label, never into zod's generic "Invalid input: expected string, received undefined".
 *
 * A field's label is declared where the field is (`labelled(schema, "The payer's name")`, or the
 * `label` of `text()` in ./common.ts) and written as it starts a sentence. A field without a label
 * is named by its path in the request ("fees.GBP.regular"), the name the API documents.
 *
 * Installed with zod's global configuration when this module loads; every contract loads it
 * (./define.ts), so every parse of a contract's schema, on the server or in an island, uses it.
 */
import { z } from "zod";

/** The label of each field that declares one (a registry: labels are looked up, never copied). */
export const fieldLabels = z.registry<{ label: string }>();

/** Declares the label a field is named by in refusals, on the schema itself (which it returns). */
export function labelled<S extends z.ZodType>(schema: S, label: string): S {
  fieldLabels.add(schema, { label });
  return schema;
}

type Issue = z.core.$ZodRawIssue;

/** The field as a sentence starts with it: its label, else its path, else "The request". */
function subject(issue: Issue): string {
  const schema = (issue as { schema?: z.core.$ZodType }).schema ?? issue.inst;
  const label = schema && "_zod" in schema ? fieldLabels.get(schema as z.core.$ZodType)?.label : undefined;
  if (label) return label;
  const path = (issue.path ?? []).map(String).join(".");
  return path || "The request";
}

/** What a JSON value of each type is called in a sentence. */
const KINDS: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  object: "an object of named fields",
  array: "a list",
  record: "an object of named fields",
  tuple: "a list",
  null: "null",
  date: "a date",
  bigint: "a whole number",
};

/** "a, b or c" */
export function orList(values: readonly unknown[]): string {
  return listOf(values, "or");
}

/** "a, b and c" */
export function andList(values: readonly unknown[]): string {
  return listOf(values, "and");
}

function listOf(values: readonly unknown[], last: "or" | "and"): string {
  const words = values.map((v) => (typeof v === "string" ? v : JSON.stringify(v)));
  return words.length <= 1 ? words.join("") : `${words.slice(0, -1).join(", ")} ${last} ${words.at(-1)}`;
}

const FORMATS: Record<string, string> = {
  email: "a valid email address",
  url: "a web address such as https://example.com",
  date: "a date written YYYY-MM-DD",
  datetime: "a moment written in ISO 8601 (2026-11-22T09:30:00Z)",
  time: "a time written HH:MM",
  uuid: "an identifier of the form 123e4567-e89b-12d3-a456-426614174000",
};

const units = (n: number | bigint, one: string, many: string) => `${n} ${Number(n) === 1 ? one : many}`;

/** The sentence for a problem zod found and the schema did not word itself. */
export function productMessage(issue: Issue): string {
  const who = subject(issue);
  switch (issue.code) {
    case "invalid_type": {
      if (issue.input === undefined) return `${who} is required.`;
      const kind = KINDS[issue.expected] ?? "of another kind";
      return `${who} must be ${kind}.`;
    }
    case "invalid_value":
      return `${who} must be ${orList(issue.values)}.`;
    case "too_small": {
      const n = issue.minimum;
      if (issue.origin === "string") {
        return Number(n) <= 1
          ? `${who} is required.`
          : `${who} must have at least ${units(n, "character", "characters")}.`;
      }
      if (issue.origin === "array" || issue.origin === "set") {
        return `${who} needs at least ${units(n, "entry", "entries")}.`;
      }
      return issue.inclusive ? `${who} must be at least ${n}.` : `${who} must be more than ${n}.`;
    }
    case "too_big": {
      const n = issue.maximum;
      if (issue.origin === "string") return `${who} must have at most ${units(n, "character", "characters")}.`;
      if (issue.origin === "array" || issue.origin === "set") {
        return `${who} has at most ${units(n, "entry", "entries")}.`;
      }
      return issue.inclusive ? `${who} must be at most ${n}.` : `${who} must be less than ${n}.`;
    }
    case "invalid_format":
      return `${who} must be ${FORMATS[issue.format] ?? "written in the form this call documents"}.`;
    case "not_multiple_of":
      return `${who} must be a multiple of ${issue.divisor}.`;
    case "unrecognized_keys":
      return `${who} has ${issue.keys.length === 1 ? "a field" : "fields"} this call does not take: ${
        andList(issue.keys)
      }.`;
    case "invalid_key":
      return `${who} has a name that is not allowed.`;
    case "invalid_element":
      return `${who} has an entry that is not allowed.`;
    case "invalid_union":
      return `${who} is not in a form this call takes.`;
    default:
      return `${who} is not accepted.`;
  }
}

z.config({ customError: productMessage });
