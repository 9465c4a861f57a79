import { parse } from "csv-parse/sync";
import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { z } from "zod";
import { characterProblem } from "../../lib/contracts/common.ts";
import { InvalidFields } from "../errors.ts";
import { isCountryCode } from "../profile/countries.ts";

/**
 * The legacy customers' file (decision 049): a CSV with a header line naming these columns, in
 * any order. Required columns must be present in the header; a line may leave the optional ones
 * empty. The names are the ones the console's upload form and docs/API.md list.
 */
export const MIGRATION_COLUMNS = [
  "legacy_id",
  "email",
  "type",
  "first_name",
  "last_name",
  "company_name",
  "phone",
  "country",
  "address_line1",
  "address_line2",
  "city",
  "postcode",
  "date_of_birth",
] as const;
export type MigrationColumn = (typeof MIGRATION_COLUMNS)[number];

/** The columns the header must have: without them no line can be judged. */
const HEADER_NEEDS: readonly MigrationColumn[] = ["legacy_id", "email", "type", "country"];

/** The most lines one file may hold: a run's dry run must answer within 10 s (issue 11). */
export const MAX_MIGRATION_LINES = 10_000;

/** One line of the file as read: its line number and its values by column (trimmed, NFC). */
export interface FileLine {
  line: number;
  values: Partial<Record<MigrationColumn, string>>;
}

/** What a line's check says: its values normalised, or the first column at fault with why. */
export type LineVerdict =
  | { ok: true; legacyId: string; email: string; data: Record<string, string> }
  | { ok: false; legacyId: string | null; email: string | null; field: MigrationColumn; reason: string };

/**
 * Reads the file into lines. A file that cannot be read as a whole (not CSV, a header without a
 * required column, an unknown column, too many lines) is refused with a 422 naming the problem:
 * nothing about it is stored.
 */
export function readMigrationFile(csv: string): FileLine[] {
  let records: { record: string[]; info: { records: number; empty_lines: number } }[];
  try {
    records = parse(csv.replace(/^\uFEFF/, ""), {
      skip_empty_lines: true,
      relax_column_count: true,
      // The header, the most lines a file may hold, and one more to know it has too many: the
      // parser runs on the server's one thread, and a 5 MB file of a million short lines kept every
      // request waiting for a minute before it was refused.
      to: MAX_MIGRATION_LINES + 2,
      info: true,
    }) as unknown as typeof records;
  } catch (error) {
    throw new InvalidFields(`The file is not valid CSV: ${(error as Error).message}`, { file: "not valid CSV" });
  }
  const [first, ...rows] = records;
  const header = first?.record;
  if (!header) {
    throw new InvalidFields("The file is empty: it needs a header line and a line per customer.", { file: "empty" });
  }
  const names = header.map((name) => name.trim().toLowerCase());
  const unnamed = names.indexOf("");
  if (unnamed >= 0) {
    throw new InvalidFields(
      `Column ${unnamed + 1} of the header has no name: give it one of ${MIGRATION_COLUMNS.join(", ")}, or delete it.`,
      { file: "column without a name" },
    );
  }
  // Two columns of one name: which is the customer's? Not the last one, silently.
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) {
    throw new InvalidFields(`The column "${twice}" is in the header twice: keep one.`, { [twice]: "column twice" });
  }
  const unknown = names.find((name) => !(MIGRATION_COLUMNS as readonly string[]).includes(name));
  if (unknown !== undefined) {
    throw new InvalidFields(
      `The column "${unknown}" is not one this file may have (${MIGRATION_COLUMNS.join(", ")}).`,
      { [unknown]: "unknown column" },
    );
  }
  const missing = HEADER_NEEDS.find((name) => !names.includes(name));
  if (missing) throw new InvalidFields(`The file has no "${missing}" column.`, { [missing]: "missing column" });
  // A header alone is a wrong export, not a migration: it was stored as a run of nobody, and a
  // commit queued a job that made no one while the list said "Done".
  if (rows.length === 0) {
    throw new InvalidFields("The file has its header line but no customer: a line per customer follows it.", {
      file: "no customer",
    });
  }
  if (rows.length > MAX_MIGRATION_LINES) {
    throw new InvalidFields(
      `The file has more than ${MAX_MIGRATION_LINES} customers: send at most ${MAX_MIGRATION_LINES} in one file.`,
      { file: "too many lines" },
    );
  }
  return rows.map(({ record, info }) => {
    const values: FileLine["values"] = {};
    names.forEach((name, j) => {
      const value = record[j];
      if (value !== undefined) values[name as MigrationColumn] = value.normalize("NFC").trim();
    });
    // A line's number as a spreadsheet shows it, the header being 1: the empty lines the parser
    // skipped before it count too (a spreadsheet shows them as empty rows), or every line after an
    // empty one was reported one too soon and the operator corrected the customer above it.
    return { line: info.records + info.empty_lines, values };
  });
}

const email = z.email();
const isoDate = z.iso.date();

/** Most characters of each column once trimmed. */
const MAX: Record<MigrationColumn, number> = {
  legacy_id: 100,
  email: 254,
  type: 20,
  first_name: 100,
  last_name: 100,
  company_name: 200,
  phone: 40,
  country: 2,
  address_line1: 200,
  address_line2: 200,
  city: 100,
  postcode: 12,
  date_of_birth: 10,
};

/** Checks one line; the first problem, column by column, is the reason it is refused. */
export function checkLine({ values }: FileLine, today: string): LineVerdict {
  const legacyId = values.legacy_id || null;
  const address = values.email?.toLowerCase() || null;
  const refuse = (field: MigrationColumn, reason: string): LineVerdict => ({
    ok: false,
    legacyId,
    email: address,
    field,
    reason,
  });
  for (const column of MIGRATION_COLUMNS) {
    const value = values[column] ?? "";
    const problem = characterProblem(value);
    if (problem) return refuse(column, `${column} ${problem}`);
    if ([...value].length > MAX[column]) {
      return refuse(column, `${column} must have at most ${MAX[column]} characters.`);
    }
  }
  if (!legacyId) return refuse("legacy_id", "legacy_id is required: the customer's id in the old system.");
  if (!address || !email.safeParse(address).success) return refuse("email", "email must be a valid email address.");
  const type = { personal: "Personal", business: "Business" }[values.type?.toLowerCase() ?? ""];
  if (!type) return refuse("type", "type must be Personal or Business.");
  if (type === "Personal" && !values.first_name) {
    return refuse("first_name", "first_name is required for a Personal customer.");
  }
  if (type === "Personal" && !values.last_name) {
    return refuse("last_name", "last_name is required for a Personal customer.");
  }
  if (type === "Business" && !values.company_name) {
    return refuse("company_name", "company_name is required for a Business customer.");
  }
  const country = values.country?.toUpperCase() ?? "";
  if (!isCountryCode(country)) return refuse("country", "country must be a two-letter ISO code such as GB.");
  let phone = "";
  if (values.phone) {
    const parsed = /^\+[\d\s().-]+$/.test(values.phone) ? parsePhoneNumberFromString(values.phone) : undefined;
    if (!parsed || !parsed.isValid() || parsed.ext) {
      return refuse("phone", "phone must be a valid international number such as +44 20 7946 0000.");
    }
    phone = parsed.number as string;
  }
  const dob = values.date_of_birth ?? "";
  if (dob && (!isoDate.safeParse(dob).success || dob >= today)) {
    return refuse("date_of_birth", "date_of_birth must be a past date written YYYY-MM-DD.");
  }
  const data: Record<string, string> = { type, country };
  for (const column of MIGRATION_COLUMNS) {
    if (column === "email" || column === "type" || column === "country" || column === "legacy_id") continue;
    const value = column === "phone" ? phone : values[column] ?? "";
    if (value) data[column] = value.replace(/\s+/g, " ");
  }
  return { ok: true, legacyId, email: address, data };
}
