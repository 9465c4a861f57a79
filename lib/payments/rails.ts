/**
 * Payout rails (docs/helpers' PAYMENTS.md "Rails, references, arrival"; decision 030): which rail a
 * payment takes for the recipient's currency and bank country, what its reference may hold, and
 * when the money is expected to arrive. Pure and shared: the payment screen limits the reference
 * field with the same rules the server checks.
 */

/** Every payout rail (payments.rail in db/schema-payments.ts). */
export const PAYOUT_RAILS = ["sepa", "faster_payments", "ach", "swift"] as const;
export type Rail = (typeof PAYOUT_RAILS)[number];

/** Local rails are the payout desk's /console/local; SWIFT transfers its /console/transfer. */
export type RailKind = "local" | "transfer";

export interface Arrival {
  /** Business days after the confirmation's business day (weekends skipped). */
  businessDays: number;
  /** Arrives within seconds, any day: instant schemes run around the clock. */
  instant: boolean;
}

export interface RailRules {
  rail: Rail;
  kind: RailKind;
  /** The rail in the customer's words. */
  name: string;
  /** The longest reference the rail carries to the recipient. */
  referenceMax: number;
  /** The characters the rail carries, as one character class. */
  referenceCharacters: RegExp;
  /** Those characters in words, for the message when a reference has others. */
  referenceCharactersText: string;
  regular: Arrival;
  priority: Arrival;
}

const days = (businessDays: number): Arrival => ({ businessDays, instant: false });
const INSTANT: Arrival = { businessDays: 0, instant: true };

/** The SEPA and SWIFT basic Latin set: what every bank on those rails accepts. */
const LATIN = /[A-Za-z0-9/\-?:().,'+ ]/;
const LATIN_TEXT = "letters A–Z, digits, spaces and / - ? : ( ) . , ' +";

export const RAILS: Readonly<Record<Rail, RailRules>> = {
  // SEPA credit transfer (regular, next business day) or SEPA Instant (priority); remittance
  // information of 140 characters in the basic Latin set.
  sepa: {
    rail: "sepa",
    kind: "local",
    name: "SEPA transfer",
    referenceMax: 140,
    referenceCharacters: LATIN,
    referenceCharactersText: LATIN_TEXT,
    regular: days(1),
    priority: INSTANT,
  },
  // UK Faster Payments run every day and arrive in seconds whatever the speed; Pay.UK's reference
  // is 18 characters of letters, digits, space and & - . /
  faster_payments: {
    rail: "faster_payments",
    kind: "local",
    name: "UK bank transfer (Faster Payments)",
    referenceMax: 18,
    referenceCharacters: /[A-Za-z0-9 &\-./]/,
    referenceCharactersText: "letters A–Z, digits, spaces and & - . /",
    regular: INSTANT,
    priority: INSTANT,
  },
  // ACH: two business days, or Same Day ACH; 80 characters of payment-related information in the
  // addenda record, printable ASCII without the record delimiters * \ ~
  ach: {
    rail: "ach",
    kind: "local",
    name: "ACH transfer",
    referenceMax: 80,
    referenceCharacters: /[ !-)+-[\]-}]/,
    referenceCharactersText: "letters A–Z, digits, spaces and punctuation other than * \\ ~",
    regular: days(2),
    priority: days(0),
  },
  // SWIFT MT103 field 70: 4 lines of 35 characters of the SWIFT X set.
  swift: {
    rail: "swift",
    kind: "transfer",
    name: "International transfer (SWIFT)",
    referenceMax: 140,
    referenceCharacters: LATIN,
    referenceCharactersText: LATIN_TEXT,
    regular: days(3),
    priority: days(1),
  },
};

/**
 * Countries whose banks SEPA reaches (the EPC's register: the EEA and the long-standing non-EEA
 * members). Recipients in the 2024-2025 joiners are paid by SWIFT until our bank confirms it
 * reaches them.
 */
const SEPA_COUNTRIES: ReadonlySet<string> = new Set(
  ("AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK IS LI NO " +
    "AX GF GP MQ RE YT MF CH GB GI GG JE IM MC SM VA AD PM BL").split(" "),
);

/** Where each local rail pays in its currency; anywhere else goes by SWIFT. */
const LOCAL: ReadonlyArray<{ currency: string; countries: ReadonlySet<string>; rail: Rail }> = [
  { currency: "EUR", countries: SEPA_COUNTRIES, rail: "sepa" },
  // Banks in the Crown Dependencies have UK sort codes and are reached by Faster Payments.
  { currency: "GBP", countries: new Set(["GB", "GG", "JE", "IM"]), rail: "faster_payments" },
  // Banks in the US territories have ABA routing numbers and are reached by ACH.
  { currency: "USD", countries: new Set(["US", "PR", "GU", "VI", "AS", "MP"]), rail: "ach" },
];

/**
 * The rail of a payment in `currency` (the recipient's) to a bank in `country` (ISO 3166 alpha-2):
 * EUR to a SEPA country by SEPA, GBP to the UK by Faster Payments, USD to the US by ACH, anything
 * else by SWIFT (decision 030: the other currencies' local schemes need partners we do not have).
 */
export function railFor(currency: string, country: string): Rail {
  const code = currency.toUpperCase();
  const where = country.toUpperCase();
  return LOCAL.find((l) => l.currency === code && l.countries.has(where))?.rail ?? "swift";
}

/** Whether a payment on this rail is a local payout or an international transfer. */
export const railKind = (rail: Rail): RailKind => RAILS[rail].kind;

/**
 * What is wrong with a reference on this rail, in the customer's words, or null when the rail
 * carries it as it is. A reference is required: the recipient and their bank match the payment by it.
 */
export function referenceProblem(rail: Rail, reference: string): string | null {
  const rules = RAILS[rail];
  if (reference.trim() === "") return "Enter a reference for the recipient.";
  const length = [...reference].length;
  if (length > rules.referenceMax) {
    return `A ${rules.name} carries a reference of at most ${rules.referenceMax} characters; this one has ${length}.`;
  }
  const others = [...new Set([...reference].filter((c) => !rules.referenceCharacters.test(c)))];
  if (others.length) {
    return `A ${rules.name} carries only ${rules.referenceCharactersText} in the reference, not ${
      others.map((c) => `“${c}”`).join(" ")
    }.`;
  }
  return null;
}

const DAY_MS = 86_400_000;
const isWeekend = (at: Date) => at.getUTCDay() === 0 || at.getUTCDay() === 6;

/**
 * When a payment confirmed at `from` is expected to reach the recipient's bank: at once for an
 * instant scheme; otherwise the confirmation's business day (a weekend counts from the Monday
 * after), plus the rail's business days, weekends skipped, at the same time of day (UTC). Bank
 * holidays and cut-off times are not modelled: the date is an expectation, said as such.
 */
export function expectedArrival(rail: Rail, priority: boolean, from: Date): Date {
  const arrival = priority ? RAILS[rail].priority : RAILS[rail].regular;
  if (arrival.instant) return new Date(from.getTime());
  let at = new Date(from.getTime());
  while (isWeekend(at)) at = new Date(at.getTime() + DAY_MS);
  for (let left = arrival.businessDays; left > 0;) {
    at = new Date(at.getTime() + DAY_MS);
    if (!isWeekend(at)) left--;
  }
  return at;
}
