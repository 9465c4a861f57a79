/**
 * Each payout rail's rules (decision 030): local or an international transfer, what its reference
 * may hold, and when the money is expected to arrive. Pure, and light enough for the browser: the
 * payment screen limits the reference with the rules the server checks. Which rail a payment
 * takes is ./rails.ts (the bank-details table, which the browser does not need).
 */
import type { Scheme } from "../bank-details/requirements.ts";
import { referenceProblemUnder, type ReferenceRules } from "./reference.ts";

/** A payout rail: one of the recipients' bank-detail schemes. */
export type Rail = Scheme;

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
  // National transfers in the currencies whose banks use IBANs (CHF, DKK, NOK, PLN, SEK...), through
  // our local partners: the 35 characters of the Latin set that every one of those schemes carries;
  // the next business day, or the same day with priority (the schemes' instant or urgent service).
  local_iban: {
    rail: "local_iban",
    kind: "local",
    name: "Local bank transfer",
    referenceMax: 35,
    referenceCharacters: LATIN,
    referenceCharactersText: LATIN_TEXT,
    regular: days(1),
    priority: days(0),
  },
  // NEFT (settled the same day) or, with priority, IMPS (instant, every day); 30 characters of
  // remarks, letters, digits and spaces.
  imps: {
    rail: "imps",
    kind: "local",
    name: "Indian bank transfer (IMPS/NEFT)",
    referenceMax: 30,
    referenceCharacters: /[A-Za-z0-9 ]/,
    referenceCharactersText: "letters A–Z, digits and spaces",
    regular: days(0),
    priority: INSTANT,
  },
  // BECS Direct Entry (the next business day) or, with priority, the NPP (instant, every day); the
  // lodgement reference is 18 characters.
  becs: {
    rail: "becs",
    kind: "local",
    name: "Australian bank transfer",
    referenceMax: 18,
    referenceCharacters: /[A-Za-z0-9 &\-./]/,
    referenceCharactersText: "letters A–Z, digits, spaces and & - . /",
    regular: days(1),
    priority: INSTANT,
  },
  // Payments Canada's AFT (two business days) or, with priority, Lynx (the same day); the
  // originator's cross-reference is 19 characters.
  eft: {
    rail: "eft",
    kind: "local",
    name: "Canadian bank transfer (EFT)",
    referenceMax: 19,
    referenceCharacters: /[A-Za-z0-9 \-./]/,
    referenceCharactersText: "letters A–Z, digits, spaces and - . /",
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

/** Whether a payment on this rail is a local payout or an international transfer. */
export const railKind = (rail: Rail): RailKind => RAILS[rail].kind;

/** A rail's reference rules, for the check (./reference.ts) and the payment screen. */
export function referenceRules(rail: Rail): ReferenceRules {
  const r = RAILS[rail];
  return {
    name: r.name,
    max: r.referenceMax,
    characters: r.referenceCharacters.source,
    charactersText: r.referenceCharactersText,
  };
}

/**
 * What is wrong with a reference on this rail, in the customer's words, or null when the rail
 * carries it as it is.
 */
export function referenceProblem(rail: Rail, reference: string): string | null {
  return referenceProblemUnder(referenceRules(rail), reference);
}

/** Whether a payment on this rail at this speed arrives within seconds (an instant scheme). */
export function arrivesInstantly(rail: Rail, priority: boolean): boolean {
  return (priority ? RAILS[rail].priority : RAILS[rail].regular).instant;
}

/**
 * Whether paying for priority makes the money arrive sooner on this rail: on UK Faster Payments a
 * regular payment already arrives within seconds, so there is no priority to offer or charge for.
 */
export function offersPriority(rail: Rail): boolean {
  const { regular, priority } = RAILS[rail];
  return regular.instant !== priority.instant || regular.businessDays !== priority.businessDays;
}

/** When a payment on this rail is expected: "within seconds", "the next business day"... */
export function speedText(rail: Rail, priority: boolean): string {
  const arrival = priority ? RAILS[rail].priority : RAILS[rail].regular;
  if (arrival.instant) return "within seconds";
  if (arrival.businessDays === 0) return "the same business day";
  return arrival.businessDays === 1 ? "the next business day" : `in ${arrival.businessDays} business days`;
}

/**
 * When a payment not sent yet (waiting for approval, or approved and waiting for the payout desk)
 * is expected, counted from when it is sent: "within seconds of being sent", "the next business day
 * after it is sent"...
 */
export function speedAfterSendingText(rail: Rail, priority: boolean): string {
  const arrival = priority ? RAILS[rail].priority : RAILS[rail].regular;
  if (arrival.instant) return "within seconds of being sent";
  if (arrival.businessDays === 0) return "the same business day it is sent";
  return arrival.businessDays === 1
    ? "the next business day after it is sent"
    : `${arrival.businessDays} business days after it is sent`;
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
