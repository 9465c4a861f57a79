import { describe, expect, test } from "vitest";
import { PAYABLE_CURRENCIES, requirementsFor } from "../../lib/bank-details/requirements.ts";
import { CUSTOMER_GUARDS } from "../../lib/contracts/guards.ts";
import { getRecipientRequirements, recipientPayload, requirementsAnswer } from "../../lib/contracts/recipients.ts";
import { fieldsOf } from "../../server/http/validate.ts";
import { recipientRequirements } from "../../server/recipients/bank-details.ts";
import { InvalidInput } from "../../server/errors.ts";

/** The 422 fields the route would answer for this payload, or the parsed payload. */
function parse(payload: unknown) {
  const result = recipientPayload.safeParse(payload);
  return result.success ? { data: result.data } : { fields: fieldsOf(result.error) };
}

const person = { name: "Ada Lovelace", type: "person" };

describe("the recipient payload", () => {
  test("a UK recipient is accepted with details tidied; email optional, empty email left out", () => {
    expect(parse({
      ...person,
      currency: "gbp",
      country: "gb",
      email: "",
      details: { sort_code: "08-99-99", account_number: "6637 4958" },
    })).toEqual({
      data: {
        name: "Ada Lovelace",
        type: "person",
        currency: "GBP",
        country: "GB",
        details: { sort_code: "089999", account_number: "66374958" },
      },
    });
  });

  test("details the currency and country do not use are left out of what is stored", () => {
    const parsed = parse({
      name: "Acme GmbH",
      type: "business",
      currency: "EUR",
      country: "DE",
      email: "Pay@Acme.example",
      details: { iban: "de89 3704 0044 0532 0130 00", sort_code: "089999", routing_number: "" },
    });
    expect(parsed).toEqual({
      data: {
        name: "Acme GmbH",
        type: "business",
        currency: "EUR",
        country: "DE",
        email: "pay@acme.example",
        details: { iban: "DE89370400440532013000" },
      },
    });
  });

  test("a refused bank detail comes back under its path, details.iban, in the customer's words", () => {
    expect(parse({ ...person, currency: "GBP", country: "GB", details: { sort_code: "601613", account_number: "1" } }))
      .toEqual({
        fields: {
          "details.account_number":
            "Enter the 8-digit account number. If it has 6 or 7 digits, add zeros at the start.",
        },
      });
    expect(parse({ ...person, currency: "EUR", country: "FR", details: { iban: "GB29NWBK6016133192681" } })).toEqual({
      fields: {
        "details.iban": "This IBAN is for a bank in United Kingdom, not France: check the IBAN or the bank's country.",
      },
    });
    expect(parse({ ...person, currency: "EUR", country: "CH", details: { iban: "CH9300762011623852957" } })).toEqual({
      fields: { "details.bic": "Enter the BIC (SWIFT code)." },
    });
  });

  test("every refused field is named at once, so the form can mark them all", () => {
    expect(parse({ ...person, currency: "USD", country: "US", details: { routing_number: "123456789" } })).toEqual({
      fields: {
        "details.routing_number": "This routing number is not valid: check its 9 digits.",
        "details.account_number": "Enter the account number.",
        "details.account_type": "Choose checking or savings.",
      },
    });
  });

  test("a currency or country we cannot pay is named as the field at fault", () => {
    expect(parse({ ...person, currency: "INR", country: "GB", details: {} })).toEqual({
      fields: { country: "We pay INR only to banks in India." },
    });
    expect(parse({ ...person, currency: "XAU", country: "GB", details: {} })).toEqual({
      fields: { currency: "We cannot pay recipients in XAU: choose another currency." },
    });
  });

  test("the recipient's own fields are checked too, and reported with the bank details' problems", () => {
    expect(parse({ name: " ", type: "robot", currency: "EUR", country: "DE", email: "ada", details: {} })).toEqual({
      fields: {
        name: "Enter the recipient's name.",
        type: "Choose whether the recipient is a person or a business.",
        email: "Enter a valid email address, or leave it empty.",
        "details.iban": "Enter the IBAN.",
      },
    });
    expect(
      parse({
        ...person,
        name: "x".repeat(71),
        currency: "EUR",
        country: "DE",
        details: { iban: "DE89370400440532013000" },
      }),
    )
      .toEqual({ fields: { name: "Use at most 70 characters for the name: a SEPA payment carries no more." } });
    expect(parse({ ...person, currency: "EUR", country: "DE", details: { iban: 89370400 } })).toEqual({
      fields: { "details.iban": "Each bank detail is text." },
    });
  });
});

describe("GET account/recipients/requirements", () => {
  test("is a customer call under /account that any user of the account may make", () => {
    expect(getRecipientRequirements).toMatchObject({
      method: "GET",
      path: "/account/recipients/requirements",
      guards: CUSTOMER_GUARDS,
      permission: "account.view",
    });
  });

  test("takes a currency and an optional country; a pair we cannot pay is a 422 naming the input", () => {
    expect(getRecipientRequirements.query.parse({ currency: "usd" })).toEqual({ currency: "USD" });
    expect(getRecipientRequirements.query.parse({ currency: "usd", country: "" })).toEqual({ currency: "USD" });
    expect(getRecipientRequirements.query.parse({ currency: "eur", country: "fr" })).toEqual({
      currency: "EUR",
      country: "FR",
    });
    const refused = getRecipientRequirements.query.safeParse({ currency: "JPY", country: "US" });
    expect(refused.success ? {} : fieldsOf(refused.error)).toEqual({ country: "We pay JPY only to banks in Japan." });
    const missing = getRecipientRequirements.query.safeParse({});
    expect(missing.success ? {} : fieldsOf(missing.error)).toEqual({
      currency: "Choose the currency the recipient receives.",
    });
  });

  test("the answer for every currency and country matches the contract", () => {
    for (const currency of PAYABLE_CURRENCIES) {
      for (const country of [undefined, "US", "DE", "GB", "JP", "TR"]) {
        const found = requirementsFor(currency, country);
        if (found.ok) expect(requirementsAnswer.parse(found.requirement)).toEqual(found.requirement);
      }
    }
  });

  test("the server's helper answers the requirement, or refuses the pair as a 422 on its field", () => {
    expect(recipientRequirements("GBP")).toMatchObject({ country: "GB", scheme: "faster_payments" });
    let refusal: unknown;
    try {
      recipientRequirements("GBP", "XX");
    } catch (e) {
      refusal = e;
    }
    expect(refusal).toBeInstanceOf(InvalidInput);
    expect(refusal).toMatchObject({ field: "country", message: "Choose the country of the recipient's bank." });
  });
});
