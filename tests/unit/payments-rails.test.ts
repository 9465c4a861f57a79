import { describe, expect, test } from "vitest";
import { expectedArrival, railFor, railKind, RAILS, referenceProblem } from "../../lib/payments/rails.ts";
import { PAYOUT_RAILS } from "../../db/schema-payments.ts";

describe("the rail a payment takes", () => {
  test("EUR to a SEPA country goes by SEPA, GBP to the UK by Faster Payments, USD to the US by ACH", () => {
    expect(railFor("EUR", "DE")).toBe("sepa");
    expect(railFor("EUR", "FR")).toBe("sepa");
    expect(railFor("EUR", "CH")).toBe("sepa");
    expect(railFor("GBP", "GB")).toBe("faster_payments");
    expect(railFor("GBP", "JE")).toBe("faster_payments");
    expect(railFor("USD", "US")).toBe("ach");
    expect(railFor("USD", "PR")).toBe("ach");
    expect(railFor("eur", "de"), "codes in any case").toBe("sepa");
  });

  test("anything else goes by SWIFT: other countries, other currencies, new SEPA joiners", () => {
    expect(railFor("EUR", "US")).toBe("swift");
    expect(railFor("GBP", "DE")).toBe("swift");
    expect(railFor("USD", "GB")).toBe("swift");
    expect(railFor("AUD", "AU")).toBe("swift");
    expect(railFor("INR", "IN")).toBe("swift");
    expect(railFor("EUR", "RS"), "Serbia joined SEPA in 2025; SWIFT until our bank reaches it").toBe("swift");
  });

  test("local rails are the local payout desk; SWIFT is a transfer", () => {
    expect(railKind("sepa")).toBe("local");
    expect(railKind("faster_payments")).toBe("local");
    expect(railKind("ach")).toBe("local");
    expect(railKind("swift")).toBe("transfer");
  });

  test("every rail of the schema has its rules", () => {
    expect(Object.keys(RAILS).sort()).toEqual([...PAYOUT_RAILS].sort());
  });
});

describe("references", () => {
  test("each rail's length is the most it carries", () => {
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
