import { describe, expect, test } from "vitest";
import { PAYABLE_CURRENCIES, requirementsFor } from "../../lib/bank-details/requirements.ts";
import { expectedArrival, railFor, railKind, RAILS, referenceProblem } from "../../lib/payments/rails.ts";
import { PAYOUT_RAILS } from "../../db/schema-payments.ts";

const rail = (currency: string, country: string) => {
  const found = railFor(currency, country);
  return found.ok ? found.rail : found.message;
};

describe("the rail a payment takes", () => {
  test("EUR to a SEPA country goes by SEPA, GBP to the UK by Faster Payments, USD to the US by ACH", () => {
    expect(rail("EUR", "DE")).toBe("sepa");
    expect(rail("EUR", "FR")).toBe("sepa");
    expect(rail("EUR", "CH")).toBe("sepa");
    expect(rail("GBP", "GB")).toBe("faster_payments");
    expect(rail("GBP", "JE")).toBe("faster_payments");
    expect(rail("USD", "US")).toBe("ach");
    expect(rail("USD", "PR")).toBe("ach");
    expect(rail("eur", "de"), "codes in any case").toBe("sepa");
  });

  test("other currencies at home by their local scheme; EUR, GBP and USD elsewhere by SWIFT", () => {
    expect(rail("AUD", "AU")).toBe("becs");
    expect(rail("INR", "IN")).toBe("imps");
    expect(rail("CAD", "CA")).toBe("eft");
    expect(rail("CHF", "CH")).toBe("local_iban");
    expect(rail("HKD", "HK")).toBe("swift");
    expect(rail("EUR", "US")).toBe("swift");
    expect(rail("GBP", "DE")).toBe("swift");
    expect(rail("USD", "GB")).toBe("swift");
    expect(rail("EUR", "RS"), "Serbia joined SEPA in 2025; SWIFT until our bank reaches it").toBe("swift");
  });

  test("a pair the bank-details table cannot pay says why", () => {
    expect(rail("AUD", "GB")).toBe("We pay AUD only to banks in Australia.");
    expect(rail("EUR", "IR")).toMatch(/^We cannot make payments to /);
  });

  test("local rails are the local payout desk; SWIFT is a transfer", () => {
    for (const r of PAYOUT_RAILS) expect(railKind(r)).toBe(r === "swift" ? "transfer" : "local");
  });

  test("every rail of the schema has its rules, named as the bank-details table names the scheme", () => {
    expect(Object.keys(RAILS).sort()).toEqual([...PAYOUT_RAILS].sort());
    for (const currency of PAYABLE_CURRENCIES) {
      const found = requirementsFor(currency);
      if (!found.ok) throw new Error(found.message);
      expect(RAILS[found.requirement.scheme].name).toBe(found.requirement.scheme_name);
    }
    const abroad = requirementsFor("EUR", "US");
    expect(abroad.ok && abroad.requirement.scheme_name).toBe(RAILS.swift.name);
  });
});

describe("references", () => {
  test("each rail's length is the most it carries", () => {
    for (const r of PAYOUT_RAILS) {
      expect(referenceProblem(r, "A".repeat(RAILS[r].referenceMax)), r).toBeNull();
      expect(referenceProblem(r, "A".repeat(RAILS[r].referenceMax + 1)), r).toMatch(/at most/);
    }
    expect(referenceProblem("faster_payments", "x".repeat(18))).toBeNull();
    expect(referenceProblem("faster_payments", "x".repeat(19))).toBe(
      "A UK bank transfer (Faster Payments) carries a reference of at most 18 characters; this one has 19.",
    );
    expect(referenceProblem("sepa", "x".repeat(140))).toBeNull();
    expect(referenceProblem("sepa", "x".repeat(141))).toMatch(/at most 140 characters; this one has 141/);
    expect(referenceProblem("ach", "x".repeat(80))).toBeNull();
    expect(referenceProblem("ach", "x".repeat(81))).toMatch(/at most 80 characters/);
    expect(referenceProblem("swift", "x".repeat(141))).toMatch(/at most 140 characters/);
  });

  test("characters a rail does not carry are named", () => {
    expect(referenceProblem("sepa", "Invoice 2026/17 (March)")).toBeNull();
    expect(referenceProblem("sepa", "Rechnung Müller & Söhne")).toBe(
      "A SEPA transfer carries only letters A–Z, digits, spaces and / - ? : ( ) . , ' + in the reference, not “ü” “&” “ö”.",
    );
    expect(referenceProblem("faster_payments", "INV-17 & co.")).toBeNull();
    expect(referenceProblem("faster_payments", "INV:17")).toMatch(/not “:”/);
    expect(referenceProblem("ach", "PO #4417; net 30")).toBeNull();
    expect(referenceProblem("ach", "a*b~c\\d")).toMatch(/not “\*” “~” “\\”/);
    expect(referenceProblem("swift", "Invoice_17")).toMatch(/not “_”/);
  });

  test("a reference is required", () => {
    expect(referenceProblem("sepa", "")).toBe("Enter a reference for the recipient.");
    expect(referenceProblem("sepa", "   ")).toBe("Enter a reference for the recipient.");
  });

  test("the spaces around a reference are not sent, so they do not count against the rail's length", () => {
    expect(referenceProblem("faster_payments", `${"x".repeat(18)} `)).toBeNull();
    expect(referenceProblem("faster_payments", ` ${"x".repeat(19)}  `)).toMatch(/this one has 19/);
  });
});

describe("expected arrival", () => {
  // 2026-03-02 is a Monday.
  const monday = new Date("2026-03-02T10:00:00Z");
  const friday = new Date("2026-03-06T16:30:00Z");
  const saturday = new Date("2026-03-07T09:00:00Z");
  const sunday = new Date("2026-03-08T23:00:00Z");
  const iso = (d: Date) => d.toISOString();

  test("instant schemes arrive at once, whatever the day", () => {
    expect(iso(expectedArrival("sepa", true, saturday))).toBe(iso(saturday));
    expect(iso(expectedArrival("faster_payments", false, sunday))).toBe(iso(sunday));
    expect(iso(expectedArrival("faster_payments", true, monday))).toBe(iso(monday));
  });

  test("business days are counted from the confirmation, weekends skipped", () => {
    expect(iso(expectedArrival("eft", false, friday))).toBe("2026-03-10T16:30:00.000Z");
    expect(iso(expectedArrival("becs", false, friday))).toBe("2026-03-09T16:30:00.000Z");
    expect(iso(expectedArrival("local_iban", true, saturday))).toBe("2026-03-09T09:00:00.000Z");
    expect(iso(expectedArrival("sepa", false, monday))).toBe("2026-03-03T10:00:00.000Z");
    expect(iso(expectedArrival("sepa", false, friday))).toBe("2026-03-09T16:30:00.000Z");
    expect(iso(expectedArrival("ach", false, monday))).toBe("2026-03-04T10:00:00.000Z");
    expect(iso(expectedArrival("ach", false, friday))).toBe("2026-03-10T16:30:00.000Z");
    expect(iso(expectedArrival("swift", false, monday))).toBe("2026-03-05T10:00:00.000Z");
    expect(iso(expectedArrival("swift", false, friday))).toBe("2026-03-11T16:30:00.000Z");
    expect(iso(expectedArrival("swift", true, friday))).toBe("2026-03-09T16:30:00.000Z");
  });

  test("a payment confirmed at the weekend counts from the Monday", () => {
    expect(iso(expectedArrival("ach", true, saturday)), "Same Day ACH: Monday").toBe("2026-03-09T09:00:00.000Z");
    expect(iso(expectedArrival("ach", true, monday))).toBe(iso(monday));
    expect(iso(expectedArrival("sepa", false, sunday))).toBe("2026-03-10T23:00:00.000Z");
    expect(iso(expectedArrival("swift", false, saturday))).toBe("2026-03-12T09:00:00.000Z");
  });
});
