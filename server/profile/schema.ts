/**
 * Server-side validation of the customer profile (the KYC form of SPEC.md section 3) and of the
 * compliance sub-record that administrators set (SPEC.md section 5).
 *
 * Every schema trims text, normalises what it can (E.164 phones, upper-case countries, plain
 * decimal amounts) and answers messages written for the customer. Customers never send the
 * compliance sub-record: the profile schemas drop it with any other unknown key.
 *
 * "Today" (for dates of birth, incorporation and review dates) is read from a clock so tests can
 * set it: `profileSchemas(new Date("2026-11-22"))`. Dates are calendar dates compared with today's
 * date in UTC. The decisions are written down in ./README.md.
 */
import * as z from "zod";
import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { text as textField } from "../../lib/contracts/common.ts";
import { COUNTRIES, COUNTRIES_WITHOUT_POSTCODE, type Country, isCountryCode } from "./countries.ts";

export { COUNTRIES, COUNTRIES_WITHOUT_POSTCODE, type Country, isCountryCode };

/** A customer (or a business's contact person) must be at least this old. */
export const MIN_AGE = 18;
/** Dates of birth further back than this many years are refused as typing errors. */
export const MAX_AGE = 120;
/** Employment answers for which "position" may be left empty (compared case-insensitively). */
export const EMPLOYMENT_WITHOUT_POSITION: readonly string[] = [
  "unemployed",
  "not employed",
  "retired",
  "student",
  "homemaker",
];

export const PHONE_MESSAGE = "Enter a valid international phone number, e.g. +44 20 7946 0000.";
export const COMPLIANCE_AMOUNT_REQUIRED = "Amount is required when setting compliance.";
// The doubled "when" is SPEC.md section 5's exact text.
export const COMPLIANCE_DATE_REQUIRED = "Date is required when when setting compliance.";

export type ProfileType = "Personal" | "Business";
export type Clock = Date | (() => Date);

// ---------------------------------------------------------------------------------------------
// Dates

const isoDate = z.iso.date();

/** True for a strict YYYY-MM-DD string naming a real calendar date (no 31 February): zod's ISO date. */
export function isIsoDate(value: string): boolean {
  return isoDate.safeParse(value).success;
}

/** Today's date in UTC as YYYY-MM-DD. */
export function isoDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/**
 * Age in whole years on `today` of someone born on `dob` (both YYYY-MM-DD). Someone born on
 * 29 February comes of age on 1 March in common years.
 */
export function ageOn(dob: string, today: string): number {
  const years = Number(today.slice(0, 4)) - Number(dob.slice(0, 4));
  return today.slice(5) < dob.slice(5) ? years - 1 : years;
}

// ---------------------------------------------------------------------------------------------
// Field builders

/** Runs of white space inside a one-line answer are one space: "Ada  Lovelace" is "Ada Lovelace". */
const oneSpace = (s: string) => s.replace(/\s+/g, " ");

/**
 * A required one-line text: the portal's text field (lib/contracts/common.ts: no control,
 * direction-changing or broken characters, NFC, trimmed), inner white space collapsed.
 */
function text(label: string, max = 200) {
  return textField({ label, max }).overwrite(oneSpace);
}

/** An optional one-line text: missing, null and blank all become "". */
function optionalText(label: string, max = 200) {
  return textField({ label, max, min: 0 }).overwrite(oneSpace).nullish().transform((s) => s ?? "");
}

/** A yes/no answer that must be given (true or false; no default). */
function answer(message: string) {
  return z.boolean({ error: message });
}

/** A list of one-line texts with at least one entry; every entry must be filled in. */
function list(emptyMessage: string, itemLabel: string, max = 20) {
  return z
    .array(text(itemLabel), {
      error: (
        issue,
      ) => (issue.input === undefined || issue.input === null ? emptyMessage : `${itemLabel}s must be a list.`),
    })
    .min(1, emptyMessage)
    .max(max, `Add at most ${max} entries.`);
}

/** An upper-case ISO 3166-1 alpha-2 country; accepts any case ("gb" becomes "GB"). */
function country(label: string) {
  return text(label, 100)
    .transform((s) => s.toUpperCase())
    .pipe(z.string().refine(isCountryCode, `${label} must be a two-letter ISO code such as GB.`));
}

/** An international phone number, valid for its country, normalised to E.164 (+447911123456). */
function phone(label: string) {
  return text(label, 40).transform((s, ctx) => {
    // Digits, spaces and the usual punctuation only: no letters, no extension, a leading "+".
    const parsed = /^\+[\d\s().-]+$/.test(s) ? parsePhoneNumberFromString(s) : undefined;
    if (!parsed || !parsed.isValid() || parsed.ext) {
      ctx.addIssue({ code: "custom", message: PHONE_MESSAGE });
      return z.NEVER;
    }
    return parsed.number as string;
  });
}

/** A strict YYYY-MM-DD calendar date. */
function date(label: string) {
  return text(label, 40).pipe(z.iso.date({ error: `${label} must be a real date in the format YYYY-MM-DD.` }));
}

/**
 * Adds a check as a further pipe stage: it runs only when every stage before it passed, so each
 * field gets one message. (A zod `abort` would do the same but would also stop the object-level
 * rules, which are meant to run whatever the fields say.)
 */
function then(schema: z.ZodType<string, unknown>, check: (value: string) => boolean, message: string) {
  return schema.pipe(z.string().refine(check, message));
}

/**
 * A date of birth: a real date, in the past, at least MIN_AGE and at most MAX_AGE years ago.
 */
function dateOfBirth(clock: () => Date, underAgeMessage: string) {
  const inThePast = then(
    date("Date of birth"),
    (dob) => dob < isoDay(clock()),
    "Date of birth must be a date in the past.",
  );
  const ofAge = then(inThePast, (dob) => ageOn(dob, isoDay(clock())) >= MIN_AGE, underAgeMessage);
  return then(
    ofAge,
    (dob) => ageOn(dob, isoDay(clock())) <= MAX_AGE,
    `Date of birth must be within the last ${MAX_AGE} years.`,
  );
}

const AMOUNT_RE = /^(?:\d{1,3}(?:[ ,]\d{3})+|\d+)(?:\.(\d{1,2}))?$/;

/**
 * Reads a decimal amount in major units ("50000", "50,000", "50 000.5", "1234.56") and answers it
 * in plain form ("50000", "50000.50", "1234.56"), or null when it is not one. At most two decimals
 * and fifteen integer digits; never a float.
 */
export function normaliseAmount(value: string): string | null {
  const m = AMOUNT_RE.exec(value.trim());
  if (!m) return null;
  const [whole, fraction = ""] = value.trim().replace(/[ ,]/g, "").split(".");
  const integer = whole.replace(/^0+(?=\d)/, "");
  if (integer.length > 15) return null;
  return /^0*$/.test(fraction) ? integer : `${integer}.${fraction.padEnd(2, "0")}`;
}

function isZeroAmount(amount: string): boolean {
  return /^0+(\.0+)?$/.test(amount);
}

/** A required amount in major units, as a plain decimal string. */
function amount(label: string, { positive }: { positive: boolean }) {
  return text(label, 30).transform((s, ctx) => {
    const normal = normaliseAmount(s);
    if (normal === null) {
      ctx.addIssue({ code: "custom", message: `${label} must be an amount such as 50000.` });
      return z.NEVER;
    }
    if (positive && isZeroAmount(normal)) {
      ctx.addIssue({ code: "custom", message: `${label} must be more than 0.` });
      return z.NEVER;
    }
    return normal;
  });
}

/** An optional website: empty, or an http(s) address or bare domain ("example.com" becomes "https://example.com"). */
function website() {
  const message = "Enter a valid website address, e.g. https://example.com.";
  return optionalText("Website", 200).transform((s, ctx) => {
    if (s === "") return s;
    const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(s) ? s : `https://${s}`;
    let url: URL;
    try {
      url = new URL(withScheme);
    } catch {
      ctx.addIssue({ code: "custom", message });
      return z.NEVER;
    }
    const host = url.hostname;
    const domain = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}[a-z0-9]$/i;
    if (!/^https?:$/.test(url.protocol) || !domain.test(host) || url.username || url.password || /\s/.test(s)) {
      ctx.addIssue({ code: "custom", message });
      return z.NEVER;
    }
    return withScheme;
  });
}

/**
 * Object-level rules run even when a field already failed, so the customer sees every problem at
 * once; they read the (possibly invalid) values defensively.
 */
const ALWAYS = { when: () => true };

/** A plain object of fields (not null, not a list): what a profile and its address are. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const POSTCODE_RE = /^[A-Za-z0-9][A-Za-z0-9 -]{0,10}[A-Za-z0-9]$|^[A-Za-z0-9]$/;

// ---------------------------------------------------------------------------------------------
// Schemas

/**
 * Builds every schema against a clock. `today` is a date or a function answering one; the
 * default reads the system clock at each validation.
 */
export function profileSchemas(today: Clock = () => new Date()) {
  const clock = typeof today === "function" ? today : () => today;

  const addressSchema = z
    .object(
      {
        line1: text("Address line 1"),
        line2: optionalText("Address line 2"),
        city: text("Town or city", 100),
        region: optionalText("County, state or region", 100),
        postcode: optionalText("Postcode", 12).refine(
          (s) => s === "" || POSTCODE_RE.test(s),
          "Enter a valid postcode.",
        ),
        country: country("Country"),
      },
      { error: "Address is required." },
    )
    .superRefine((address, ctx) => {
      if (!isRecord(address)) return;
      const code = typeof address.country === "string" ? address.country : "";
      if (address.postcode === "" && isCountryCode(code) && !COUNTRIES_WITHOUT_POSTCODE.has(code)) {
        ctx.addIssue({ code: "custom", path: ["postcode"], message: "Postcode is required." });
      }
    }, ALWAYS);

  // Each label is the form's own (islands/PersonalProfileForm.tsx), so that an error names the field
  // the customer sees: "Passport number is required", not the name of the column.
  const personalProfileSchema = z
    .object(
      {
        first: text("First name", 100),
        last: text("Last name", 100),
        dob: dateOfBirth(clock, `You must be ${MIN_AGE} or older to open an account.`),
        phone: phone("Phone number"),
        identity: text("Passport number"),
        address: addressSchema,
        employment: text("Employment status", 100),
        position: optionalText("Job title", 100),
        expected: amount("Expected annual amount you'll send", { positive: true }),
        fundSource: text("Main source of funds", 500),
        source: list("Add at least one source of wealth.", "Source of wealth"),
        purpose: list("Add at least one purpose for the account.", "Purpose"),
        personal: answer("Say whether the account is for your personal use."),
        agency: answer("Say whether you are acting on behalf of someone else."),
        agency_of: optionalText("Acting on behalf of", 200),
        public: answer("Say whether you are a politically exposed person."),
        denial: answer("Say whether you have been refused an account before."),
        discovery: optionalText("How you heard about us", 200),
        accountManager: optionalText("Account manager", 100),
      },
      { error: "Send the profile as an object." },
    )
    .superRefine((profile, ctx) => {
      if (!isRecord(profile)) return;
      const employment = typeof profile.employment === "string" ? profile.employment.toLowerCase() : "";
      if (profile.position === "" && employment !== "" && !EMPLOYMENT_WITHOUT_POSITION.includes(employment)) {
        ctx.addIssue({ code: "custom", path: ["position"], message: "Job title is required." });
      }
      if (profile.agency === true && profile.agency_of === "") {
        ctx.addIssue({
          code: "custom",
          path: ["agency_of"],
          message: "Name the person or company you are acting for.",
        });
      }
    }, ALWAYS)
    // Who one acts for means nothing once agency is false: do not keep a stale answer.
    .transform((profile) => (profile.agency ? profile : { ...profile, agency_of: "" }));

  const businessProfileSchema = z.object(
    {
      name: text("Company name"),
      number: text("Company registration number", 30),
      incorporation: then(
        then(
          date("Date of incorporation"),
          (d) => d >= "1600-01-01",
          "Date of incorporation must be a real date in the format YYYY-MM-DD.",
        ),
        (d) => d <= isoDay(clock()),
        "Date of incorporation cannot be in the future.",
      ),
      country: country("Country of incorporation"),
      address: addressSchema,
      nature: text("Nature of business", 500),
      turnover: amount("Annual turnover", { positive: false }),
      website: website(),
      first: text("First name", 100),
      last: text("Last name", 100),
      dob: dateOfBirth(clock, `The contact person must be ${MIN_AGE} or older.`),
      phone: phone("Phone number"),
      ubos: list("Add at least one ultimate beneficial owner.", "Ultimate beneficial owner full name"),
      directors: list("Add at least one director.", "Director full name"),
      purpose: list("Add at least one purpose for the account.", "Purpose"),
      discovery: optionalText("How you heard about us", 200),
      accountManager: optionalText("Account manager", 100),
    },
    { error: "Send the profile as an object." },
  );

  const complianceAmount = z
    .union([z.string(), z.number()], { error: "Amount must be an amount such as 50000." })
    .nullish()
    .transform((value, ctx): string | null => {
      if (value === null || value === undefined) return null;
      const raw = typeof value === "number" ? (Number.isFinite(value) ? String(value) : "x") : value.trim();
      if (raw === "") return null;
      const normal = normaliseAmount(raw);
      if (normal === null) {
        ctx.addIssue({ code: "custom", message: "Amount must be an amount such as 50000." });
        return z.NEVER;
      }
      if (isZeroAmount(normal)) {
        ctx.addIssue({ code: "custom", message: "Amount must be more than 0." });
        return z.NEVER;
      }
      return normal;
    });

  const complianceDate = z
    .string({ error: "Date must be a real date in the format YYYY-MM-DD." })
    .nullish()
    .transform((value, ctx): string | null => {
      const s = (value ?? "").trim();
      if (s === "") return null;
      if (!isIsoDate(s)) {
        ctx.addIssue({ code: "custom", message: "Date must be a real date in the format YYYY-MM-DD." });
        return z.NEVER;
      }
      if (s > isoDay(clock())) {
        ctx.addIssue({ code: "custom", message: "Date cannot be in the future." });
        return z.NEVER;
      }
      return s;
    });

  const complianceSchema = z
    .object(
      {
        done: z.boolean({ error: "Done must be true or false." }).default(false),
        amount: complianceAmount,
        date: complianceDate,
      },
      { error: "Send the compliance record as an object." },
    )
    .superRefine((compliance, ctx) => {
      if (!isRecord(compliance) || compliance.done !== true) return;
      if (compliance.amount === null) {
        ctx.addIssue({ code: "custom", path: ["amount"], message: COMPLIANCE_AMOUNT_REQUIRED });
      }
      if (compliance.date === null) {
        ctx.addIssue({ code: "custom", path: ["date"], message: COMPLIANCE_DATE_REQUIRED });
      }
    }, ALWAYS);

  return { addressSchema, personalProfileSchema, businessProfileSchema, complianceSchema };
}

/** The schemas on the system clock. */
export const { addressSchema, personalProfileSchema, businessProfileSchema, complianceSchema } = profileSchemas();

export type Address = z.output<typeof addressSchema>;
export type PersonalProfile = z.output<typeof personalProfileSchema>;
export type BusinessProfile = z.output<typeof businessProfileSchema>;
export type Profile = PersonalProfile | BusinessProfile;
export type Compliance = z.output<typeof complianceSchema>;

// ---------------------------------------------------------------------------------------------
// Validation entry points

export type ValidationFailure = {
  ok: false;
  /** The first message, to show the user. */
  error: string;
  /** Dotted path ("address.country", "directors.1") to the first message for that field. */
  fields: Record<string, string>;
};
export type ProfileValidation<P> = { ok: true; profile: P } | ValidationFailure;
export type ComplianceValidation = { ok: true; compliance: Compliance } | ValidationFailure;

const DEFAULT_SCHEMAS = { personalProfileSchema, businessProfileSchema, complianceSchema };

function failure(error: z.ZodError): ValidationFailure {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const path = issue.path.map(String).join(".");
    if (path !== "" && !(path in fields)) fields[path] = issue.message;
  }
  return { ok: false, error: error.issues[0]?.message ?? "The profile is not valid.", fields };
}

/** Validates a customer's profile of the given type; `today` defaults to the system clock. */
export function validateProfile(type: "Personal", input: unknown, today?: Date): ProfileValidation<PersonalProfile>;
export function validateProfile(type: "Business", input: unknown, today?: Date): ProfileValidation<BusinessProfile>;
export function validateProfile(type: ProfileType, input: unknown, today?: Date): ProfileValidation<Profile>;
export function validateProfile(type: ProfileType, input: unknown, today?: Date): ProfileValidation<Profile> {
  const schemas = today ? profileSchemas(today) : DEFAULT_SCHEMAS;
  if (type !== "Personal" && type !== "Business") {
    return { ok: false, error: "Unknown profile type.", fields: {} };
  }
  const result = type === "Personal"
    ? schemas.personalProfileSchema.safeParse(input)
    : schemas.businessProfileSchema.safeParse(input);
  return result.success ? { ok: true, profile: result.data } : failure(result.error);
}

/**
 * The fields given of a profile of the given type, each by its own rule, none required (support's
 * changes, decision 078): what can be judged before the saved profile is read. The rules across
 * fields (a job title for some employments, whom one acts for) are judged on the whole profile.
 */
export function validateProfileChanges(type: ProfileType, input: unknown, today?: Date): ValidationFailure | null {
  const schemas = today ? profileSchemas(today) : DEFAULT_SCHEMAS;
  const whole = type === "Personal" ? schemas.personalProfileSchema.in : schemas.businessProfileSchema;
  const result = z.object(whole.shape).partial().safeParse(input);
  return result.success ? null : failure(result.error);
}

/** Validates the compliance sub-record an administrator sets; `today` defaults to the system clock. */
export function validateCompliance(input: unknown, today?: Date): ComplianceValidation {
  const schemas = today ? profileSchemas(today) : DEFAULT_SCHEMAS;
  const result = schemas.complianceSchema.safeParse(input);
  return result.success ? { ok: true, compliance: result.data } : failure(result.error);
}

// ---------------------------------------------------------------------------------------------
// Flags (DESIGN.md section 3)

export type PersonalFlag = "public" | "denial" | "agency";

/**
 * The raised flags of a Personal profile, in this order: public (politically exposed), denial
 * (refused an account before), agency (acting for someone else). A Personal customer with any
 * raised flag waits for a compliance review instead of getting an account at once.
 */
export function personalProfileFlags(profile: Pick<PersonalProfile, PersonalFlag>): PersonalFlag[] {
  return (["public", "denial", "agency"] as const).filter((flag) => profile[flag] === true);
}
