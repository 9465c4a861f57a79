import { describe, expect, test } from "vitest";
import {
  ageOn,
  type BusinessProfile,
  COMPLIANCE_AMOUNT_REQUIRED,
  COMPLIANCE_DATE_REQUIRED,
  COUNTRIES,
  isIsoDate,
  MIN_AGE,
  normaliseAmount,
  type PersonalProfile,
  personalProfileFlags,
  personalProfileSchema,
  profileSchemas,
  validateCompliance,
  validateProfile,
} from "../../server/profile/schema.ts";

const TODAY = new Date("2026-11-22T12:00:00Z");

function personalInput(): Record<string, unknown> {
  return {
    first: "  Ada ",
    last: "Lovelace  ",
    phone: "+44 7911 123456",
    dob: "1990-05-17",
    identity: " Passport 123456789 ",
    employment: "Employed",
    position: "Engineer",
    expected: "50,000",
    fundSource: "Salary",
    discovery: "",
    agency_of: "",
    address: { line1: " 10 Downing Street ", city: "London", postcode: "SW1A 2AA", country: "gb" },
    personal: true,
    agency: false,
    public: false,
    denial: false,
    source: ["Salary", " Savings "],
    purpose: ["Family support"],
  };
}

function businessInput(): Record<string, unknown> {
  return {
    name: " Acme Trading Ltd ",
    number: "12345678",
    incorporation: "2015-03-01",
    country: "gb",
    address: {
      line1: "1 High Street",
      line2: "Suite 4",
      city: "Leeds",
      region: "West Yorkshire",
      postcode: "LS1 1AA",
      country: "GB",
    },
    nature: "Import and export of machine parts",
    turnover: "1000000",
    first: "Grace",
    last: "Hopper",
    phone: "+1 (415) 555-2671",
    dob: "1980-12-09",
    website: "acme.example.com",
    discovery: "Search engine",
    ubos: ["Grace Hopper"],
    directors: ["Grace Hopper", "Alan Turing"],
    purpose: ["Paying suppliers"],
  };
}

function personal(overrides: Record<string, unknown>) {
  return validateProfile("Personal", { ...personalInput(), ...overrides }, TODAY);
}
function business(overrides: Record<string, unknown>) {
  return validateProfile("Business", { ...businessInput(), ...overrides }, TODAY);
}

/** Asserts a failure with `message` at `path` and answers the result for further checks. */
function expectFieldError(
  result: ReturnType<typeof validateProfile> | ReturnType<typeof validateCompliance>,
  path: string,
  message: string,
) {
  expect(result.ok).toBe(false);
  if (result.ok) throw new Error("unreachable");
  expect(result.fields[path]).toBe(message);
  return result;
}

describe("a complete profile", () => {
  test("a valid Personal profile passes, trimmed and normalised, with compliance stripped", () => {
    const result = validateProfile("Personal", {
      ...personalInput(),
      compliance: { done: true, amount: 1, date: "2026-01-01" },
    }, TODAY);
    expect(result).toEqual({
      ok: true,
      profile: {
        first: "Ada",
        last: "Lovelace",
        dob: "1990-05-17",
        phone: "+447911123456",
        identity: "Passport 123456789",
        address: {
          line1: "10 Downing Street",
          line2: "",
          city: "London",
          region: "",
          postcode: "SW1A 2AA",
          country: "GB",
        },
        employment: "Employed",
        position: "Engineer",
        expected: "50000",
        fundSource: "Salary",
        source: ["Salary", "Savings"],
        purpose: ["Family support"],
        personal: true,
        agency: false,
        agency_of: "",
        public: false,
        denial: false,
        discovery: "",
        accountManager: "",
      } satisfies PersonalProfile,
    });
  });

  test("a valid Business profile passes, trimmed and normalised, with compliance stripped", () => {
    const result = validateProfile("Business", {
      ...businessInput(),
      compliance: { done: true },
      accountManager: " Sam ",
    }, TODAY);
    expect(result).toEqual({
      ok: true,
      profile: {
        name: "Acme Trading Ltd",
        number: "12345678",
        incorporation: "2015-03-01",
        country: "GB",
        address: {
          line1: "1 High Street",
          line2: "Suite 4",
          city: "Leeds",
          region: "West Yorkshire",
          postcode: "LS1 1AA",
          country: "GB",
        },
        nature: "Import and export of machine parts",
        turnover: "1000000",
        website: "https://acme.example.com",
        first: "Grace",
        last: "Hopper",
        dob: "1980-12-09",
        phone: "+14155552671",
        ubos: ["Grace Hopper"],
        directors: ["Grace Hopper", "Alan Turing"],
        purpose: ["Paying suppliers"],
        discovery: "Search engine",
        accountManager: "Sam",
      } satisfies BusinessProfile,
    });
  });

  test("the default schemas, on the system clock, accept the same profile", () => {
    expect(personalProfileSchema.safeParse(personalInput()).success).toBe(true);
  });

  test("a profile that is not an object is refused", () => {
    expect(validateProfile("Personal", "nope", TODAY)).toEqual({
      ok: false,
      error: "Send the profile as an object.",
      fields: {},
    });
    expect(validateProfile("Business", null, TODAY).ok).toBe(false);
  });
});

describe("required fields", () => {
  test("an empty Personal profile names each missing field, first message first", () => {
    const result = validateProfile("Personal", {}, TODAY);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toBe("First name is required.");
    expect(result.fields).toMatchObject({
      first: "First name is required.",
      last: "Last name is required.",
      dob: "Date of birth is required.",
      phone: "Phone number is required.",
      identity: "Passport number is required.",
      address: "Address is required.",
      employment: "Employment status is required.",
      expected: "Expected annual amount you'll send is required.",
      fundSource: "Main source of funds is required.",
      source: "Add at least one source of wealth.",
      purpose: "Add at least one purpose for the account.",
      personal: "Say whether the account is for your personal use.",
      agency: "Say whether you are acting on behalf of someone else.",
      public: "Say whether you are a politically exposed person.",
      denial: "Say whether you have been refused an account before.",
    });
    // Optional fields never complain when missing.
    expect(Object.keys(result.fields)).not.toContain("discovery");
    expect(Object.keys(result.fields)).not.toContain("accountManager");
  });

  test("blank (white space only) text counts as missing", () => {
    const result = expectFieldError(personal({ first: "   " }), "first", "First name is required.");
    expect(result.error).toBe("First name is required.");
    expectFieldError(personal({ last: null }), "last", "Last name is required.");
  });

  test("text of the wrong type is refused", () => {
    expectFieldError(personal({ first: 42 }), "first", "First name must be text.");
  });

  test("address fields are checked at their dotted paths", () => {
    const result = personal({ address: { line1: "", city: "London", country: "GB" } });
    expectFieldError(result, "address.line1", "Address line 1 is required.");
    expectFieldError(result, "address.postcode", "Postcode is required.");
  });

  test("a postcode may be left empty only where the country has none", () => {
    const hongKong = personal({ address: { line1: "1 Queen's Road", city: "Hong Kong", country: "HK" } });
    expect(hongKong.ok).toBe(true);
    expectFieldError(
      personal({ address: { line1: "1 A St", city: "X", postcode: "!!", country: "GB" } }),
      "address.postcode",
      "Enter a valid postcode.",
    );
  });

  test("the position may be empty only for someone not in work", () => {
    expectFieldError(personal({ position: "" }), "position", "Job title is required.");
    expect(personal({ employment: "Retired", position: "" }).ok).toBe(true);
  });

  test("an empty Business profile names each missing field", () => {
    const result = validateProfile("Business", {}, TODAY);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toBe("Company name is required.");
    expect(result.fields).toMatchObject({
      name: "Company name is required.",
      number: "Company registration number is required.",
      incorporation: "Date of incorporation is required.",
      country: "Country of incorporation is required.",
      nature: "Nature of business is required.",
      turnover: "Annual turnover is required.",
      ubos: "Add at least one ultimate beneficial owner.",
      directors: "Add at least one director.",
      purpose: "Add at least one purpose for the account.",
    });
    expect(Object.keys(result.fields)).not.toContain("website");
  });
});

describe("dates", () => {
  test("a date of birth not in strict YYYY-MM-DD form is refused", () => {
    const message = "Date of birth must be a real date in the format YYYY-MM-DD.";
    for (const dob of ["17/05/1990", "1990-5-17", "1990-05-17T00:00:00Z", "19900517"]) {
      expectFieldError(personal({ dob }), "dob", message);
    }
  });

  test("31 February and 29 February of a common year are refused; 29 February of a leap year is fine", () => {
    const message = "Date of birth must be a real date in the format YYYY-MM-DD.";
    expectFieldError(personal({ dob: "1990-02-31" }), "dob", message);
    expectFieldError(personal({ dob: "1990-02-29" }), "dob", message);
    expectFieldError(personal({ dob: "1990-13-01" }), "dob", message);
    expect(personal({ dob: "1992-02-29" }).ok).toBe(true);
    expect(isIsoDate("2000-02-29")).toBe(true);
    expect(isIsoDate("1900-02-29")).toBe(false);
  });

  test("a date of birth today or in the future is refused", () => {
    expectFieldError(personal({ dob: "2027-01-01" }), "dob", "Date of birth must be a date in the past.");
    expectFieldError(personal({ dob: "2026-11-22" }), "dob", "Date of birth must be a date in the past.");
  });

  test(`one must be ${MIN_AGE} or older on the injected today`, () => {
    expect(MIN_AGE).toBe(18);
    expectFieldError(personal({ dob: "2008-11-23" }), "dob", "You must be 18 or older to open an account.");
    expect(personal({ dob: "2008-11-22" }).ok).toBe(true);
    // The same birthday is fine a day later: "today" really is injected.
    expect(validateProfile("Personal", { ...personalInput(), dob: "2008-11-23" }, new Date("2026-11-23T00:00:00Z")).ok)
      .toBe(true);
    expectFieldError(business({ dob: "2010-01-01" }), "dob", "The contact person must be 18 or older.");
  });

  test("a schema built on a clock function reads it at each validation", () => {
    let now = new Date("2026-11-22T00:00:00Z");
    const { personalProfileSchema } = profileSchemas(() => now);
    const input = { ...personalInput(), dob: "2008-11-23" };
    expect(personalProfileSchema.safeParse(input).success).toBe(false);
    now = new Date("2026-11-23T00:00:00Z");
    expect(personalProfileSchema.safeParse(input).success).toBe(true);
  });

  test("someone born on 29 February comes of age on 1 March in a common year", () => {
    expect(ageOn("2008-02-29", "2026-02-28")).toBe(17);
    expect(ageOn("2008-02-29", "2026-03-01")).toBe(18);
  });

  test("a date of birth more than 120 years ago is refused", () => {
    expectFieldError(personal({ dob: "1900-01-01" }), "dob", "Date of birth must be within the last 120 years.");
  });

  test("incorporation is a real date, not in the future", () => {
    expectFieldError(
      business({ incorporation: "2015-02-30" }),
      "incorporation",
      "Date of incorporation must be a real date in the format YYYY-MM-DD.",
    );
    expectFieldError(
      business({ incorporation: "2026-11-23" }),
      "incorporation",
      "Date of incorporation cannot be in the future.",
    );
    expect(business({ incorporation: "2026-11-22" }).ok).toBe(true);
  });
});

describe("phones", () => {
  test("valid international numbers are normalised to E.164", () => {
    for (
      const [input, e164] of [
        ["+447911123456", "+447911123456"],
        ["+14155552671", "+14155552671"],
        ["+44 20 7946 0000", "+442079460000"],
        ["+33 6 12 34 56 78", "+33612345678"],
      ]
    ) {
      const result = personal({ phone: input });
      expect(result.ok).toBe(true);
      if (result.ok) expect(result.profile.phone).toBe(e164);
    }
  });

  test("numbers without +, too short, too long, with letters or an extension are refused", () => {
    const message = "Enter a valid international phone number, e.g. +44 20 7946 0000.";
    for (
      const phone of [
        "07911123456",
        "447911123456",
        "+44123",
        "+4479111234567",
        "+1-800-FLOWERS",
        "+44 20 7946 0000 ext. 12",
        "+999 123456",
      ]
    ) {
      expectFieldError(personal({ phone }), "phone", message);
    }
    expectFieldError(business({ phone: "+1234" }), "phone", message);
  });
});

describe("countries", () => {
  test("a country is normalised to upper case", () => {
    const result = business({
      country: " us ",
      address: { line1: "1 Main St", city: "Austin", postcode: "78701", country: "us" },
    });
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.profile.country).toBe("US");
      expect(result.profile.address.country).toBe("US");
    }
  });

  test("an unknown code or an alpha-3 code is refused", () => {
    const address = (country: string) => ({ line1: "1 A St", city: "X", postcode: "X1", country });
    expectFieldError(
      personal({ address: address("XX") }),
      "address.country",
      "Country must be a two-letter ISO code such as GB.",
    );
    expectFieldError(
      personal({ address: address("gbr") }),
      "address.country",
      "Country must be a two-letter ISO code such as GB.",
    );
    expectFieldError(
      business({ country: "XX" }),
      "country",
      "Country of incorporation must be a two-letter ISO code such as GB.",
    );
    expectFieldError(
      business({ country: "GBR" }),
      "country",
      "Country of incorporation must be a two-letter ISO code such as GB.",
    );
  });

  test("COUNTRIES lists every alpha-2 code once, sorted by English name", () => {
    expect(COUNTRIES.length).toBeGreaterThanOrEqual(249);
    expect(new Set(COUNTRIES.map((c) => c.code)).size).toBe(COUNTRIES.length);
    expect(COUNTRIES.every((c) => /^[A-Z]{2}$/.test(c.code) && c.name.length > 0)).toBe(true);
    expect(COUNTRIES.find((c) => c.code === "GB")).toEqual({ code: "GB", name: "United Kingdom", postcode: true });
    expect(COUNTRIES.find((c) => c.code === "HK")?.postcode).toBe(false);
    const names = COUNTRIES.map((c) => c.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, "en")));
  });
});

describe("lists, agency, amounts and website", () => {
  test("a business needs at least one UBO and one director", () => {
    expectFieldError(business({ ubos: [] }), "ubos", "Add at least one ultimate beneficial owner.");
    expectFieldError(business({ ubos: undefined }), "ubos", "Add at least one ultimate beneficial owner.");
    const result = expectFieldError(business({ directors: [] }), "directors", "Add at least one director.");
    expect(result.error).toBe("Add at least one director.");
  });

  test("list entries are trimmed and may not be blank", () => {
    expectFieldError(business({ directors: ["Grace Hopper", "  "] }), "directors.1", "Director full name is required.");
    const result = business({ directors: ["  Grace   Hopper "] });
    expect(result.ok && result.profile.directors).toEqual(["Grace Hopper"]);
  });

  test("a Personal profile needs at least one source and one purpose", () => {
    expectFieldError(personal({ source: [] }), "source", "Add at least one source of wealth.");
    expectFieldError(personal({ purpose: [] }), "purpose", "Add at least one purpose for the account.");
  });

  test("agency true needs agency_of; agency false clears it", () => {
    expectFieldError(
      personal({ agency: true, agency_of: " " }),
      "agency_of",
      "Name the person or company you are acting for.",
    );
    expectFieldError(personal({ agency: true }), "agency_of", "Name the person or company you are acting for.");
    const acting = personal({ agency: true, agency_of: " Acme Ltd " });
    expect(acting.ok && acting.profile.agency_of).toBe("Acme Ltd");
    const notActing = personal({ agency: false, agency_of: "Someone" });
    expect(notActing.ok && notActing.profile.agency_of).toBe("");
  });

  test("yes/no answers must be booleans", () => {
    expectFieldError(personal({ public: "no" }), "public", "Say whether you are a politically exposed person.");
  });

  test("expected volume is a positive amount; turnover may be zero", () => {
    expectFieldError(
      personal({ expected: "lots" }),
      "expected",
      "Expected annual amount you'll send must be an amount such as 50000.",
    );
    expectFieldError(
      personal({ expected: "-5" }),
      "expected",
      "Expected annual amount you'll send must be an amount such as 50000.",
    );
    expectFieldError(
      personal({ expected: "0" }),
      "expected",
      "Expected annual amount you'll send must be more than 0.",
    );
    expect(business({ turnover: "0" }).ok).toBe(true);
    expect(normaliseAmount("1,234,567.5")).toBe("1234567.50");
    expect(normaliseAmount("007")).toBe("7");
    expect(normaliseAmount("1e5")).toBeNull();
    expect(normaliseAmount("1,23")).toBeNull();
  });

  test("website is optional, an http(s) address or a bare domain", () => {
    expect(business({ website: "" }).ok).toBe(true);
    expect(business({ website: undefined }).ok).toBe(true);
    const withScheme = business({ website: "http://acme.example.com/about" });
    expect(withScheme.ok && withScheme.profile.website).toBe("http://acme.example.com/about");
    const message = "Enter a valid website address, e.g. https://example.com.";
    for (const website of ["not a website", "ftp://acme.example.com", "javascript:alert(1)", "localhost"]) {
      expectFieldError(business({ website }), "website", message);
    }
  });
});

describe("compliance", () => {
  test("done true without an amount gives the spec's message at amount", () => {
    const result = expectFieldError(
      validateCompliance({ done: true, date: "2026-01-05" }, TODAY),
      "amount",
      COMPLIANCE_AMOUNT_REQUIRED,
    );
    expect(COMPLIANCE_AMOUNT_REQUIRED).toBe("Amount is required when setting compliance.");
    expect(result.error).toBe("Amount is required when setting compliance.");
    expect(Object.keys(result.fields)).toEqual(["amount"]);
    expectFieldError(
      validateCompliance({ done: true, amount: "", date: "2026-01-05" }, TODAY),
      "amount",
      COMPLIANCE_AMOUNT_REQUIRED,
    );
    expectFieldError(
      validateCompliance({ done: true, amount: null, date: "2026-01-05" }, TODAY),
      "amount",
      COMPLIANCE_AMOUNT_REQUIRED,
    );
  });

  test("done true without a date gives the spec's message, doubled 'when' and all, at date", () => {
    const result = expectFieldError(
      validateCompliance({ done: true, amount: "25000" }, TODAY),
      "date",
      COMPLIANCE_DATE_REQUIRED,
    );
    expect(COMPLIANCE_DATE_REQUIRED).toBe("Date is required when when setting compliance.");
    expect(result.error).toBe("Date is required when when setting compliance.");
    expect(Object.keys(result.fields)).toEqual(["date"]);
  });

  test("done true with neither reports both", () => {
    const result = validateCompliance({ done: true }, TODAY);
    expect(result).toEqual({
      ok: false,
      error: "Amount is required when setting compliance.",
      fields: {
        amount: "Amount is required when setting compliance.",
        date: "Date is required when when setting compliance.",
      },
    });
  });

  test("done false with neither is fine, and done defaults to false", () => {
    expect(validateCompliance({ done: false }, TODAY)).toEqual({
      ok: true,
      compliance: { done: false, amount: null, date: null },
    });
    expect(validateCompliance({}, TODAY)).toEqual({ ok: true, compliance: { done: false, amount: null, date: null } });
    expect(validateCompliance({ amount: "", date: "" }, TODAY)).toEqual({
      ok: true,
      compliance: { done: false, amount: null, date: null },
    });
  });

  test("a complete record is normalised", () => {
    expect(validateCompliance({ done: true, amount: 25000, date: "2026-11-22" }, TODAY)).toEqual({
      ok: true,
      compliance: { done: true, amount: "25000", date: "2026-11-22" },
    });
    expect(validateCompliance({ done: true, amount: "25,000.5", date: "2026-01-05" }, TODAY)).toEqual({
      ok: true,
      compliance: { done: true, amount: "25000.50", date: "2026-01-05" },
    });
  });

  test("bad amounts and dates are refused at their field", () => {
    expectFieldError(
      validateCompliance({ done: true, amount: "abc", date: "2026-01-05" }, TODAY),
      "amount",
      "Amount must be an amount such as 50000.",
    );
    expectFieldError(
      validateCompliance({ done: true, amount: "0", date: "2026-01-05" }, TODAY),
      "amount",
      "Amount must be more than 0.",
    );
    expectFieldError(
      validateCompliance({ done: true, amount: "1", date: "2026-02-31" }, TODAY),
      "date",
      "Date must be a real date in the format YYYY-MM-DD.",
    );
    expectFieldError(
      validateCompliance({ done: true, amount: "1", date: "2026-11-23" }, TODAY),
      "date",
      "Date cannot be in the future.",
    );
    expectFieldError(
      validateCompliance({ done: "yes", amount: "1", date: "2026-01-05" }, TODAY),
      "done",
      "Done must be true or false.",
    );
  });
});

describe("flags", () => {
  test("no raised flag means no review", () => {
    expect(personalProfileFlags({ public: false, denial: false, agency: false })).toEqual([]);
  });

  test("each raised flag is reported, in order", () => {
    expect(personalProfileFlags({ public: true, denial: false, agency: false })).toEqual(["public"]);
    expect(personalProfileFlags({ public: false, denial: true, agency: false })).toEqual(["denial"]);
    expect(personalProfileFlags({ public: false, denial: false, agency: true })).toEqual(["agency"]);
    expect(personalProfileFlags({ public: true, denial: true, agency: true })).toEqual(["public", "denial", "agency"]);
  });

  test("works on a validated profile", () => {
    const result = personal({ public: true, agency: true, agency_of: "My mother" });
    expect(result.ok).toBe(true);
    if (result.ok) expect(personalProfileFlags(result.profile)).toEqual(["public", "agency"]);
  });
});
