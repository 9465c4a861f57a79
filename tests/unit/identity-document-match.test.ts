import { describe, expect, test } from "vitest";
import { compareDocument, type DeclaredIdentity, normaliseName } from "../../server/identity/document.ts";

/**
 * The identity check binds the profile (decision 085): what the provider read from the document is
 * compared with the name and date of birth the customer declared. Accents, case and spacing never
 * make a mismatch; another person's name or birthday always does.
 */

const ADA: DeclaredIdentity = { firstName: "Ada", lastName: "Lovelace", dob: "1990-12-10", country: "GB" };

describe("a document read by the provider against the profile", () => {
  test("the same person in capitals, as a passport's machine zone reads, matches", () => {
    expect(compareDocument(ADA, { firstName: "ADA", lastName: "LOVELACE", dob: "1990-12-10" })).toBeNull();
  });

  test("accents, spacing, hyphens and apostrophes are not differences", () => {
    const declared = { firstName: "José  María", lastName: "O'Brien-Núñez", dob: "1985-02-01" };
    expect(compareDocument(declared, { firstName: "JOSE MARIA", lastName: "OBRIEN NUNEZ", dob: "1985-02-01" }))
      .toBeNull();
    expect(normaliseName("  Zoë  Straße ")).toBe("zoe strasse");
  });

  test("middle names in Sumsub's first name, or in its middle name, match a profile without them", () => {
    expect(compareDocument(ADA, { firstName: "Ada Augusta", lastName: "Lovelace", dob: "1990-12-10" })).toBeNull();
    expect(compareDocument(ADA, { firstName: "Ada", middleName: "Augusta", lastName: "Lovelace", dob: "1990-12-10" }))
      .toBeNull();
    const both = { ...ADA, firstName: "Ada Augusta" };
    expect(compareDocument(both, { firstName: "Ada", middleName: "Augusta", lastName: "Lovelace", dob: "1990-12-10" }))
      .toBeNull();
    // The name a person goes by, when it is one of the document's given names.
    expect(compareDocument({ ...ADA, firstName: "Augusta" }, {
      firstName: "Ada Augusta",
      lastName: "Lovelace",
      dob: "1990-12-10",
    })).toBeNull();
  });

  test("a document in another script matches through the provider's Latin transliteration", () => {
    const declared = { firstName: "Ivan", lastName: "Petrov", dob: "1979-05-05" };
    expect(compareDocument(declared, {
      firstName: "Иван",
      lastName: "Петров",
      firstNameEn: "Ivan",
      lastNameEn: "Petrov",
      dob: "1979-05-05",
    })).toBeNull();
  });

  test("another person's name, a near name or given names out of order do not match", () => {
    expect(compareDocument(ADA, { firstName: "Bob", lastName: "Smith", dob: "1990-12-10" })).toBe("name");
    expect(compareDocument(ADA, { firstName: "Adam", lastName: "Lovelace", dob: "1990-12-10" })).toBe("name");
    expect(compareDocument(ADA, { firstName: "Ada", lastName: "Lovelace King", dob: "1990-12-10" })).toBe("name");
    expect(compareDocument({ ...ADA, firstName: "Augusta Ada" }, {
      firstName: "Ada Augusta",
      lastName: "Lovelace",
      dob: "1990-12-10",
    })).toBe("name");
  });

  test("the date of birth must be the same day", () => {
    expect(compareDocument(ADA, { firstName: "Ada", lastName: "Lovelace", dob: "1990-12-11" })).toBe("dob");
    expect(compareDocument(ADA, { firstName: "Bob", lastName: "Smith", dob: "1970-01-01" })).toBe("name_and_dob");
  });

  test("a document with no name or date of birth read from it proves nothing", () => {
    expect(compareDocument(ADA, undefined)).toBe("no_document_data");
    expect(compareDocument(ADA, { firstName: "Ada", lastName: "Lovelace" })).toBe("no_document_data");
    expect(compareDocument(ADA, { lastName: "Lovelace", dob: "1990-12-10" })).toBe("no_document_data");
  });
});
