import { eq } from "drizzle-orm";
import type { IdentityMismatch } from "../../lib/compliance.ts";
import { profiles } from "../../db/schema.ts";
import type { Executor } from "./store.ts";

/**
 * The identity check is tied to the profile (decision 085): the person's declared identity goes to
 * the provider before the check, and what the provider read from the document is compared with the
 * profile when it approves. A mismatch, or nothing to compare, sends the customer to the compliance
 * review instead of opening their account at once.
 */

/** What the person declared, as the check binds it: the profile's (or a Business's contact person's). */
export interface DeclaredIdentity {
  firstName: string;
  lastName: string;
  /** YYYY-MM-DD. */
  dob: string;
  /** ISO 3166-1 alpha-2, of a Personal profile's address; a Business's contact person has none. */
  country?: string;
}

/**
 * What the provider read from the identity document (Sumsub's applicant `info`). Sumsub may put
 * middle names in firstName or in middleName, and adds Latin transliterations (the *En fields)
 * for documents in other scripts.
 */
export interface DocumentDetails {
  firstName?: string;
  middleName?: string;
  lastName?: string;
  firstNameEn?: string;
  middleNameEn?: string;
  lastNameEn?: string;
  /** YYYY-MM-DD. */
  dob?: string;
}

/** The identity fields of a saved profile, or null when there is none or it lacks them. */
export function declaredIdentityFrom(type: "Personal" | "Business", data: unknown): DeclaredIdentity | null {
  if (!data || typeof data !== "object") return null;
  const d = data as Record<string, unknown>;
  if (typeof d.first !== "string" || typeof d.last !== "string" || typeof d.dob !== "string") return null;
  const address = d.address as Record<string, unknown> | undefined;
  const country = type === "Personal" && typeof address?.country === "string" ? address.country : undefined;
  return { firstName: d.first, lastName: d.last, dob: d.dob, ...(country ? { country } : {}) };
}

/** The customer's declared identity, from their saved profile; null before they saved one. */
export async function declaredIdentityOf(db: Executor, userId: number): Promise<DeclaredIdentity | null> {
  const [row] = await db.select({ type: profiles.type, data: profiles.data }).from(profiles)
    .where(eq(profiles.userId, userId));
  return row ? declaredIdentityFrom(row.type, row.data) : null;
}

/** Letters that do not decompose into a base letter and an accent. */
const FOLDED: Record<string, string> = {
  "ß": "ss",
  "æ": "ae",
  "œ": "oe",
  "ø": "o",
  "ł": "l",
  "đ": "d",
  "ð": "d",
  "þ": "th",
  "ı": "i",
};

/**
 * A name as compared: accents removed (é → e, ß → ss), lower case, hyphens, dots and commas as
 * spaces, apostrophes dropped (O'Brien = OBrien), runs of spaces as one. "  José-María " → "jose maria".
 */
export function normaliseName(name: string): string {
  return name.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase()
    .replace(/[ßæœøłđðþı]/g, (c) => FOLDED[c])
    .replace(/['’ʼ`]/g, "")
    .replace(/[-‐‑–—.,_]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

const words = (name: string | undefined) => normaliseName(name ?? "").split(" ").filter(Boolean);

/** Whether `wanted` appears in `among` in the same order (not necessarily next to each other). */
function inOrder(wanted: string[], among: string[]): boolean {
  let i = 0;
  for (const word of among) if (word === wanted[i]) i++;
  return i === wanted.length;
}

/**
 * Whether the profile's names are the document's, in one of the document's scripts (as read, or
 * transliterated to Latin). How strict:
 * - the last name must be the document's last name, whole (a double surname on the document and a
 *   single one in the profile is a mismatch for the administrator to look at);
 * - every word of the profile's first name must be one of the document's given names (first and
 *   middle names together), in the document's order: "John" and "John Paul" both match a document
 *   of "John Paul" (or first "John", middle "Paul"), and so does "Paul", the name someone goes by;
 *   "Jon" does not.
 */
function namesMatch(declared: DeclaredIdentity, document: DocumentDetails): boolean {
  const first = words(declared.firstName);
  const last = words(declared.lastName).join(" ");
  if (first.length === 0 || last === "") return false;
  const scripts = [
    { given: [...words(document.firstName), ...words(document.middleName)], last: words(document.lastName).join(" ") },
    {
      given: [
        ...words(document.firstNameEn ?? document.firstName),
        ...words(document.middleNameEn ?? document.middleName),
      ],
      last: words(document.lastNameEn ?? document.lastName).join(" "),
    },
  ];
  return scripts.some((s) => s.last === last && inOrder(first, s.given));
}

/**
 * What keeps an approved check from opening the account at once, or null when the document's name
 * and date of birth are the profile's. The date must be exactly the same day. A document with no
 * last name, no first name or no date of birth read from it is "no_document_data": nothing proves
 * the document is the declared person's.
 */
export function compareDocument(
  declared: DeclaredIdentity,
  document: DocumentDetails | undefined,
): IdentityMismatch | null {
  const read = document &&
    (document.firstName || document.firstNameEn) && (document.lastName || document.lastNameEn) && document.dob;
  if (!read) return "no_document_data";
  const name = namesMatch(declared, document);
  const dob = document.dob!.trim() === declared.dob;
  if (name && dob) return null;
  return !name && !dob ? "name_and_dob" : name ? "dob" : "name";
}

/** The document's details as the administrator reads them in the review: its name and date of birth. */
export function documentSummary(document: DocumentDetails | undefined): { name: string; dob: string } | null {
  if (!document) return null;
  const name = [document.firstName, document.middleName, document.lastName].filter(Boolean).join(" ").trim();
  if (!name && !document.dob) return null;
  return { name, dob: document.dob ?? "" };
}

/** Sumsub's applicant `info` as DocumentDetails: only the strings the comparison reads. */
export function documentFromSumsub(info: unknown): DocumentDetails | undefined {
  if (!info || typeof info !== "object") return undefined;
  const i = info as Record<string, unknown>;
  const keys = ["firstName", "middleName", "lastName", "firstNameEn", "middleNameEn", "lastNameEn", "dob"] as const;
  const out: DocumentDetails = {};
  for (const key of keys) if (typeof i[key] === "string" && (i[key] as string).trim()) out[key] = i[key] as string;
  return Object.keys(out).length ? out : undefined;
}
