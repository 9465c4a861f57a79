/**
 * The profile fields support can change on /console/users/{id} (decision 078): every field the
 * customer's own form saves (SPEC.md section 3), under the label the console's Profile card reads
 * them by (server/profile/facts.ts), in the form's order. In lib/ because the console's editor
 * (islands/ConsoleProfileEdit.tsx) draws them and the server names them in its audit entry and in
 * the email that tells the customer.
 */

/** How a field is typed in the editor: one line, a date, one entry a line, yes or no, an address. */
export type ProfileFieldKind = "text" | "date" | "list" | "yesno" | "address";

export interface ProfileField {
  key: string;
  label: string;
  kind: ProfileFieldKind;
  /** May be left empty (the customer's form says "optional" too). */
  optional?: boolean;
}

const f = (key: string, label: string, kind: ProfileFieldKind = "text"): ProfileField => ({ key, label, kind });
/** A one-line answer that may be left empty. */
const optional = (key: string, label: string): ProfileField => ({ key, label, kind: "text", optional: true });

export const PROFILE_FIELDS: Record<"Personal" | "Business", readonly ProfileField[]> = {
  Personal: [
    f("first", "First name"),
    f("last", "Last name"),
    f("dob", "Date of birth", "date"),
    f("phone", "Phone number"),
    f("identity", "Passport number"),
    f("address", "Address", "address"),
    f("employment", "Employment status"),
    optional("position", "Job title"),
    f("expected", "Expected annual amount they will send"),
    f("fundSource", "Main source of funds"),
    f("source", "Sources of wealth", "list"),
    f("purpose", "Purposes of the account", "list"),
    f("personal", "For their personal use", "yesno"),
    f("public", "Politically exposed person", "yesno"),
    f("denial", "Refused an account before", "yesno"),
    f("agency", "Acting on behalf of someone else", "yesno"),
    optional("agency_of", "Acting on behalf of"),
    optional("discovery", "How they heard about us"),
    optional("accountManager", "Account manager"),
  ],
  Business: [
    f("name", "Company name"),
    f("number", "Company registration number"),
    f("incorporation", "Date of incorporation", "date"),
    f("country", "Country of incorporation"),
    f("address", "Registered address", "address"),
    f("nature", "Nature of business"),
    f("turnover", "Annual turnover"),
    optional("website", "Website"),
    f("first", "Contact's first name"),
    f("last", "Contact's last name"),
    f("dob", "Contact's date of birth", "date"),
    f("phone", "Contact's phone number"),
    f("directors", "Directors", "list"),
    f("ubos", "Ultimate beneficial owners", "list"),
    f("purpose", "Purposes of the account", "list"),
    optional("discovery", "How they heard about us"),
    optional("accountManager", "Account manager"),
  ],
};

/** The parts of an address, in the form's order, with their labels (server/profile/schema.ts). */
export const ADDRESS_PARTS = [
  ["line1", "Address line 1"],
  ["line2", "Address line 2"],
  ["city", "Town or city"],
  ["region", "County, state or region"],
  ["postcode", "Postcode"],
  ["country", "Country (ISO code, e.g. GB)"],
] as const;

/** The label of a field of the type's profile, or the key itself for one not in the list. */
export const profileFieldLabel = (type: "Personal" | "Business", key: string): string =>
  PROFILE_FIELDS[type].find((field) => field.key === key)?.label ?? key;
