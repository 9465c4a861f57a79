import { eq } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { profiles } from "../../db/schema.ts";
import { COUNTRIES } from "./countries.ts";

/**
 * The customer's saved profile as a compliance reviewer reads it on /console/users/{id}: every
 * field the customer gave, under the label of the form they filled in (./schema.ts), in words and
 * in the form's order, so that the reviewer sees what they approve. Empty optional answers say
 * "Not given" rather than vanish, so that a missing answer is visible too.
 */

export type ProfileFact = [label: string, value: string];

const COUNTRY_NAMES = new Map(COUNTRIES.map((c) => [c.code, c.name]));
const NOT_GIVEN = "Not given";

const str = (v: unknown): string => {
  if (v === null || v === undefined) return "";
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  return String(v).trim();
};
const orNot = (v: unknown) => str(v) || NOT_GIVEN;
const countryName = (v: unknown) => {
  const code = str(v);
  return code ? `${COUNTRY_NAMES.get(code) ?? code} (${code})` : NOT_GIVEN;
};
const yesNo = (v: unknown) => v === true ? "Yes" : v === false ? "No" : NOT_GIVEN;
const list = (v: unknown) => {
  const items = Array.isArray(v) ? v.map(str).filter(Boolean) : [];
  return items.length ? items.join("; ") : NOT_GIVEN;
};

/** An address on one line: "10 Downing Street, London, SW1A 2AA, United Kingdom (GB)". */
export function addressText(v: unknown): string {
  const a = v && typeof v === "object" ? v as Record<string, unknown> : {};
  const parts = [a.line1, a.line2, a.city, a.region, a.postcode].map(str).filter(Boolean);
  if (str(a.country)) parts.push(countryName(a.country));
  return parts.length ? parts.join(", ") : NOT_GIVEN;
}

/** A person's profile (SPEC.md section 3), labelled as on the personal form. */
function personFacts(d: Record<string, unknown>): ProfileFact[] {
  return [
    ["First name", orNot(d.first)],
    ["Last name", orNot(d.last)],
    ["Date of birth", orNot(d.dob)],
    ["Phone number", orNot(d.phone)],
    ["Passport number", orNot(d.identity)],
    ["Address", addressText(d.address)],
    ["Employment status", orNot(d.employment)],
    ["Job title", orNot(d.position)],
    ["Expected annual amount they will send", orNot(d.expected)],
    ["Main source of funds", orNot(d.fundSource)],
    ["Sources of wealth", list(d.source)],
    ["Purposes of the account", list(d.purpose)],
    ["For their personal use", yesNo(d.personal)],
    ["How they heard about us", orNot(d.discovery)],
    ["Account manager", orNot(d.accountManager)],
  ];
}

/** A company's profile (SPEC.md section 3), labelled as on the business form. */
function businessFacts(d: Record<string, unknown>): ProfileFact[] {
  return [
    ["Company name", orNot(d.name)],
    ["Company registration number", orNot(d.number)],
    ["Date of incorporation", orNot(d.incorporation)],
    ["Country of incorporation", countryName(d.country)],
    ["Registered address", addressText(d.address)],
    ["Nature of business", orNot(d.nature)],
    ["Annual turnover", orNot(d.turnover)],
    ["Website", orNot(d.website)],
    ["Contact person", [str(d.first), str(d.last)].filter(Boolean).join(" ") || NOT_GIVEN],
    ["Contact's date of birth", orNot(d.dob)],
    ["Contact's phone number", orNot(d.phone)],
    ["Directors", list(d.directors)],
    ["Ultimate beneficial owners", list(d.ubos)],
    ["Purposes of the account", list(d.purpose)],
    ["How they heard about us", orNot(d.discovery)],
    ["Account manager", orNot(d.accountManager)],
  ];
}

/** The profile's facts for its type, from the saved JSON (read defensively: older rows may lack fields). */
export function profileFacts(type: "Personal" | "Business", data: unknown): ProfileFact[] {
  const d = data && typeof data === "object" ? data as Record<string, unknown> : {};
  return type === "Business" ? businessFacts(d) : personFacts(d);
}

/** The customer's saved profile as facts, with its type and when it was last saved; null before the first save. */
export async function profileFactsOf(
  db: Database,
  customerId: number,
): Promise<{ type: "Personal" | "Business"; facts: ProfileFact[]; updatedAt: Date } | null> {
  const [row] = await db.select({ type: profiles.type, data: profiles.data, updatedAt: profiles.updatedAt })
    .from(profiles).where(eq(profiles.userId, customerId));
  return row ? { type: row.type, facts: profileFacts(row.type, row.data), updatedAt: row.updatedAt } : null;
}
