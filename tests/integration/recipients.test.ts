import { count, eq } from "drizzle-orm";
import { composeIBAN } from "ibantools";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { accountMembers } from "../../db/schema.ts";
import { recipientChanges, recipients } from "../../db/schema-payments.ts";
import { PAYABLE_CURRENCIES, requirementsFor } from "../../lib/bank-details/requirements.ts";
import { SORT_CODE_MISMATCH, UK_IBAN_MISMATCH } from "../../server/recipients/bank-details.ts";
import { recipientFor } from "../../server/recipients/index.ts";
import { COUNTRY_CANNOT_CHANGE, CURRENCY_CANNOT_CHANGE } from "../../server/recipients/service.ts";
import { ukAccountPassesModulusCheck } from "../../server/recipients/uk-modulus.ts";
import { type Admin, type Customer, expectStatus, MINUTE, TestClient } from "../helpers/client.ts";
import { customerWithoutAccount, type MoneyApp, moneyApp, type OpenCustomer, openCustomer } from "../helpers/money.ts";

/**
 * Recipients through the calls (issue 8, item 1): the bank details each scheme needs are accepted,
 * and what the rules refuse is refused by the server with the field named, changing nothing; a
 * recipient belongs to its account (another account's is a 404 for reading, changing and
 * deleting); a viewer sees recipients but cannot add, change or delete one; every change is
 * recorded with what it was before and after, and a change of bank details moves
 * details_changed_at, which the approval rule reads.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;
let owner: OpenCustomer;
let stranger: OpenCustomer;
let viewer: Customer;

beforeAll(async () => {
  // A euro-area company bank: SEPA recipients in the EEA need no BIC (payouts-no-bic.test.ts has
  // the default, a UK bank, where they all do: decision 066).
  ({ t, admin } = await moneyApp({
    env: { COMPANY_BANK_IBAN: "DE89370400440532013000", COMPANY_BANK_BIC: "COBADEFFXXX" },
  }));
  owner = await openCustomer(t);
  stranger = await openCustomer(t);
  // A person whose only account is the owner's, as a viewer (the users work invites them so).
  viewer = await customerWithoutAccount(t);
  const [{ accountId }] = await t.db.select({ accountId: accountMembers.accountId }).from(accountMembers)
    .where(eq(accountMembers.userId, owner.id));
  await t.db.insert(accountMembers).values({ accountId, userId: viewer.id, role: "viewer", createdAt: new Date() });
});

/** The recipients and change records of every account: what a refused call must leave as it was. */
async function stored() {
  const [[r], [c]] = await Promise.all([
    t.db.select({ n: count() }).from(recipients),
    t.db.select({ n: count() }).from(recipientChanges),
  ]);
  return { recipients: r.n, changes: c.n };
}

const person = { name: "Jean Dupont", type: "person" };

/** Adds a recipient as the owner and answers it. */
async function add(fields: Record<string, unknown>, client = owner.client) {
  const res = await client.post("account/recipients", { ...person, ...fields });
  expectStatus(res, 201);
  return res.json.body;
}

/** Every currency at its home country and, where it is paid worldwide, at a bank abroad (SWIFT). */
const PAIRS: [currency: string, country: string | undefined][] = PAYABLE_CURRENCIES.flatMap((currency) => {
  const home: [string, string | undefined] = [currency, undefined];
  return ["EUR", "GBP", "USD"].includes(currency) ? [home, [currency, "JP"] as [string, string]] : [home];
});

describe("adding a recipient with valid bank details", () => {
  test.each(PAIRS)("%s to a bank in %s (its home country when blank): saved with the scheme that pays it", async (
    currency,
    country,
  ) => {
    const found = requirementsFor(currency, country);
    if (!found.ok) throw new Error(found.message);
    const { requirement } = found;
    const details = Object.fromEntries(requirement.fields.map((field) => [field.key, field.example]));
    const saved = await add({ currency, country: requirement.country, details });
    expect(saved).toMatchObject({
      currency,
      country: requirement.country,
      scheme: requirement.scheme,
      scheme_name: requirement.scheme_name,
    });
    // Stored tidied: no spaces or dashes ("60-16-13" is kept as "601613").
    for (const value of Object.values(saved.details as Record<string, string>)) expect(value).not.toMatch(/[\s-]/);
    expect(Object.keys(saved.details).sort()).toEqual(requirement.fields.map((f) => f.key).sort());
    expect(saved.changes).toEqual([
      expect.objectContaining({ kind: "created", before: null, on_behalf_by: null }),
    ]);
  });

  test("every scheme of the requirements table was covered", () => {
    const schemes = new Set(PAIRS.map(([currency, country]) => {
      const found = requirementsFor(currency, country);
      return found.ok ? found.requirement.scheme : null;
    }));
    expect([...schemes].sort()).toEqual([
      "ach",
      "becs",
      "eft",
      "faster_payments",
      "imps",
      "local_iban",
      "sepa",
      "swift",
    ]);
  });

  test("spaces, dashes and small letters are tidied; details the currency does not use are dropped", async () => {
    const saved = await add({
      currency: "gbp",
      country: "gb",
      email: " Jean@Example.COM ",
      details: { sort_code: "08-99-99", account_number: "6637 4958", iban: "DE89370400440532013000" },
    });
    expect(saved).toMatchObject({
      currency: "GBP",
      country: "GB",
      email: "jean@example.com",
      scheme: "faster_payments",
      details: { sort_code: "089999", account_number: "66374958" },
    });
    expect(saved.details).not.toHaveProperty("iban");
  });
});

/** A GB IBAN whose check digits are right but whose account number fails its sort code's modulus check. */
function ukIbanFailingModulus(): string {
  expect(ukAccountPassesModulusCheck("089999", "66374959")).toBe(false);
  return composeIBAN({ countryCode: "GB", bban: "NWBK08999966374959" })!;
}

/** Refused payloads, each with the field the 422 must name. */
const REFUSED: [what: string, payload: Record<string, unknown>, field: string, message?: string][] = [
  ["SEPA: an IBAN with a wrong check digit", {
    currency: "EUR",
    country: "DE",
    details: { iban: "DE88370400440532013000" },
  }, "details.iban"],
  ["SEPA: an IBAN of another country than the bank's", {
    currency: "EUR",
    country: "FR",
    details: { iban: "DE89370400440532013000" },
  }, "details.iban"],
  ["SEPA outside the EEA: no BIC", {
    currency: "EUR",
    country: "CH",
    details: { iban: "CH9300762011623852957" },
  }, "details.bic"],
  ["Faster Payments: a sort code of 5 digits", {
    currency: "GBP",
    country: "GB",
    details: { sort_code: "08999", account_number: "66374958" },
  }, "details.sort_code"],
  [
    "Faster Payments: an account number that fails the UK modulus check (server only)",
    {
      currency: "GBP",
      country: "GB",
      details: { sort_code: "089999", account_number: "66374959" },
    },
    "details.account_number",
    SORT_CODE_MISMATCH,
  ],
  [
    "SEPA to a UK bank: a GB IBAN whose account fails the UK modulus check (server only)",
    {
      currency: "EUR",
      country: "GB",
      details: { iban: "(computed)", bic: "NWBKGB2L" },
    },
    "details.iban",
    UK_IBAN_MISMATCH,
  ],
  ["ACH: a routing number with a wrong checksum", {
    currency: "USD",
    country: "US",
    details: { routing_number: "026009594", account_number: "123456789", account_type: "checking" },
  }, "details.routing_number"],
  ["ACH: no account type", {
    currency: "USD",
    country: "US",
    details: { routing_number: "026009593", account_number: "123456789" },
  }, "details.account_type"],
  ["local IBAN: a German IBAN for a Polish bank", {
    currency: "PLN",
    country: "PL",
    details: { iban: "DE89370400440532013000" },
  }, "details.iban"],
  ["IMPS: an IFSC without its fifth character 0", {
    currency: "INR",
    country: "IN",
    details: { ifsc: "SBIN1005943", account_number: "123456789012" },
  }, "details.ifsc"],
  ["BECS: a BSB of 5 digits", {
    currency: "AUD",
    country: "AU",
    details: { bsb: "06200", account_number: "12345678" },
  }, "details.bsb"],
  ["EFT: a transit number of 4 digits", {
    currency: "CAD",
    country: "CA",
    details: { institution_number: "004", transit_number: "1234", account_number: "1234567" },
  }, "details.transit_number"],
  ["SWIFT: no BIC", {
    currency: "JPY",
    country: "JP",
    details: { account_number: "12345678" },
  }, "details.bic"],
  ["SWIFT: a BIC of another country than the bank's", {
    currency: "USD",
    country: "JP",
    details: { account_number: "12345678", bic: "DEUTDEFF" },
  }, "details.bic"],
  ["a currency we do not pay", { currency: "XAU", country: "GB", details: {} }, "currency"],
  ["a country we do not pay", { currency: "USD", country: "IR", details: {} }, "country"],
  ["a currency paid only at home, to a bank abroad", {
    currency: "INR",
    country: "GB",
    details: {},
  }, "country"],
  ["no name", { name: " ", currency: "EUR", country: "DE", details: { iban: "DE89370400440532013000" } }, "name"],
  ["an email that is not one", {
    currency: "EUR",
    country: "DE",
    email: "jean@",
    details: { iban: "DE89370400440532013000" },
  }, "email"],
];

describe("the server refuses what the rules refuse, naming the field, and saves nothing", () => {
  test.each(REFUSED)("%s → 422 on %s", async (_what, payload, field, message) => {
    const details = payload.details as Record<string, string>;
    const body = {
      ...person,
      ...payload,
      details: details.iban === "(computed)" ? { ...details, iban: ukIbanFailingModulus() } : details,
    };
    const before = await stored();
    const res = await owner.client.post("account/recipients", body);
    expectStatus(res, 422);
    expect(Object.keys(res.json.fields)).toContain(field);
    if (message) expect(res.json.fields[field]).toBe(message);
    expect(await stored()).toEqual(before);
  });

  test("a change to refused bank details is refused the same way, and the recipient is as it was", async () => {
    const saved = await add({
      currency: "GBP",
      country: "GB",
      details: { sort_code: "089999", account_number: "66374958" },
    });
    const before = await stored();
    const res = await owner.client.put(`account/recipients/${saved.id}`, {
      ...person,
      currency: "GBP",
      country: "GB",
      details: { sort_code: "089999", account_number: "66374959" },
    });
    expectStatus(res, 422);
    expect(res.json.fields).toEqual({ "details.account_number": SORT_CODE_MISMATCH });
    expect(await stored()).toEqual(before);
    const again = await owner.client.get(`account/recipients/${saved.id}`);
    expect(again.json.body.details).toEqual(saved.details);
    expect(again.json.body.updated_at).toBe(saved.updated_at);
  });
});

describe("a recipient belongs to its account", () => {
  let theirs: { id: number; details: Record<string, string> };
  beforeAll(async () => {
    theirs = await add({ currency: "EUR", country: "DE", details: { iban: "DE89370400440532013000" } });
  });

  test("another account's customer gets 404 for reading, changing and deleting it, and it is unchanged", async () => {
    const before = await stored();
    expectStatus(await stranger.client.get(`account/recipients/${theirs.id}`), 404);
    const valid = await stranger.client.put(`account/recipients/${theirs.id}`, {
      ...person,
      name: "Mallory",
      currency: "EUR",
      country: "FR",
      details: { iban: "FR7630006000011234567890189" },
    });
    expectStatus(valid, 404);
    expectStatus(await stranger.client.delete(`account/recipients/${theirs.id}`), 404);
    expect(await stored()).toEqual(before);
    const mine = await owner.client.get(`account/recipients/${theirs.id}`);
    expectStatus(mine, 200);
    expect(mine.json.body).toMatchObject({ name: "Jean Dupont", details: theirs.details });
  });

  test("another account's list does not show it", async () => {
    const list = await stranger.client.get("account/recipients");
    expectStatus(list, 200);
    expect(list.json.body.items.map((r: { id: number }) => r.id)).not.toContain(theirs.id);
  });

  test("recipientFor (what payments read) finds it only for its own account", async () => {
    const ownerAccount = (await recipientFor(t.db, await accountOf(owner.id), theirs.id)).id;
    expect(ownerAccount).toBe(theirs.id);
    await expect(recipientFor(t.db, await accountOf(stranger.id), theirs.id)).rejects.toMatchObject({
      kind: "not_found",
    });
  });
});

async function accountOf(userId: number): Promise<number> {
  const [row] = await t.db.select({ accountId: accountMembers.accountId }).from(accountMembers)
    .where(eq(accountMembers.userId, userId));
  return row.accountId;
}

describe("a viewer of the account", () => {
  test("sees the list, a recipient and the requirements", async () => {
    const saved = await add({ currency: "EUR", country: "DE", details: { iban: "DE89370400440532013000" } });
    const list = await viewer.client.get("account/recipients?per_page=100");
    expectStatus(list, 200);
    expect(list.json.body.items.map((r: { id: number }) => r.id)).toContain(saved.id);
    expectStatus(await viewer.client.get(`account/recipients/${saved.id}`), 200);
    expectStatus(await viewer.client.get("account/recipients/requirements?currency=GBP"), 200);
  });

  test("cannot add, change or delete a recipient (403), and nothing changes", async () => {
    const saved = await add({ currency: "EUR", country: "DE", details: { iban: "DE89370400440532013000" } });
    const before = await stored();
    const payload = { ...person, currency: "EUR", country: "DE", details: { iban: "DE89370400440532013000" } };
    expectStatus(await viewer.client.post("account/recipients", payload), 403);
    expectStatus(await viewer.client.put(`account/recipients/${saved.id}`, { ...payload, name: "Changed" }), 403);
    expectStatus(await viewer.client.delete(`account/recipients/${saved.id}`), 403);
    expect(await stored()).toEqual(before);
  });
});

describe("a recipient's answer sent back", () => {
  test("a GET's body PUT back unchanged, email null included, is accepted and changes nothing", async () => {
    const saved = await add({ currency: "EUR", country: "DE", details: { iban: "DE89370400440532013000" } });
    const read = await owner.client.get(`account/recipients/${saved.id}`);
    expectStatus(read, 200);
    expect(read.json.body.email).toBeNull();
    const before = await stored();
    t.clock.advance(MINUTE);
    const put = await owner.client.put(`account/recipients/${saved.id}`, read.json.body);
    expectStatus(put, 200);
    expect(put.json.body).toEqual(read.json.body);
    expect(await stored()).toEqual(before);
    expect((await owner.client.get(`account/recipients/${saved.id}`)).json.body).toEqual(read.json.body);
  });

  test("email null is no email when adding too", async () => {
    const saved = await add({
      email: null,
      currency: "EUR",
      country: "DE",
      details: { iban: "DE89370400440532013000" },
    });
    expect(saved.email).toBeNull();
  });
});

describe("changes are recorded", () => {
  test("a change of bank details records before and after, who made it, and moves details_changed_at", async () => {
    const saved = await add({
      currency: "GBP",
      country: "GB",
      details: { sort_code: "089999", account_number: "66374958" },
    });
    t.clock.advance(5 * MINUTE);
    const res = await owner.client.put(`account/recipients/${saved.id}`, {
      ...person,
      currency: "GBP",
      country: "GB",
      details: { sort_code: "10-79-99", account_number: "88837491" },
    });
    expectStatus(res, 200);
    const changed = res.json.body;
    expect(changed.details).toEqual({ sort_code: "107999", account_number: "88837491" });
    expect(changed.details_changed_at).toBe(new Date(t.clock.now()).toISOString());
    expect(changed.details_changed_at).not.toBe(saved.details_changed_at);
    expect(changed.created_at).toBe(saved.created_at);
    expect(changed.changes[0]).toEqual({
      id: expect.any(Number),
      kind: "details",
      at: new Date(t.clock.now()).toISOString(),
      by: "Ada Lovelace",
      on_behalf_by: null,
      before: { details: { sort_code: "089999", account_number: "66374958" } },
      after: { details: { sort_code: "107999", account_number: "88837491" } },
    });
    const [row] = await t.db.select().from(recipientChanges).where(eq(recipientChanges.id, changed.changes[0].id));
    expect(row).toMatchObject({ recipientId: saved.id, changedBy: owner.id, onBehalfAdminId: null });
    const [stored] = await t.db.select().from(recipients).where(eq(recipients.id, saved.id));
    expect(stored.detailsChangedAt.getTime()).toBe(t.clock.now());
  });

  test("a change of name, type or email is recorded as such and leaves details_changed_at alone", async () => {
    const saved = await add({ currency: "EUR", country: "DE", details: { iban: "DE89370400440532013000" } });
    t.clock.advance(MINUTE);
    const res = await owner.client.put(`account/recipients/${saved.id}`, {
      name: "Dupont SARL",
      type: "business",
      email: "compta@dupont.example",
      currency: "EUR",
      country: "DE",
      details: { iban: "DE89 3704 0044 0532 0130 00" },
    });
    expectStatus(res, 200);
    expect(res.json.body.details_changed_at).toBe(saved.details_changed_at);
    expect(res.json.body.changes.map((c: { kind: string }) => c.kind)).toEqual(["name", "created"]);
    expect(res.json.body.changes[0]).toMatchObject({
      before: { name: "Jean Dupont", type: "person", email: null },
      after: { name: "Dupont SARL", type: "business", email: "compta@dupont.example" },
    });
  });

  test("sending what is already saved records nothing", async () => {
    const saved = await add({ currency: "EUR", country: "DE", details: { iban: "DE89370400440532013000" } });
    const before = await stored();
    const res = await owner.client.put(`account/recipients/${saved.id}`, {
      ...person,
      currency: "EUR",
      country: "DE",
      details: { iban: "de89370400440532013000" },
    });
    expectStatus(res, 200);
    expect(await stored()).toEqual(before);
    expect(res.json.body.updated_at).toBe(saved.updated_at);
  });

  test("a new currency or bank country is refused: that is a new recipient", async () => {
    const saved = await add({ currency: "EUR", country: "DE", details: { iban: "DE89370400440532013000" } });
    const before = await stored();
    const currency = await owner.client.put(`account/recipients/${saved.id}`, {
      ...person,
      currency: "GBP",
      country: "GB",
      details: { sort_code: "089999", account_number: "66374958" },
    });
    expectStatus(currency, 422);
    expect(currency.json.fields).toEqual({ currency: CURRENCY_CANNOT_CHANGE });
    const country = await owner.client.put(`account/recipients/${saved.id}`, {
      ...person,
      currency: "EUR",
      country: "FR",
      details: { iban: "FR1420041010050500013M02606" },
    });
    expectStatus(country, 422);
    expect(country.json.fields).toEqual({ country: COUNTRY_CANNOT_CHANGE });
    expect(await stored()).toEqual(before);
  });

  test("a change made by an administrator on the customer's behalf names both", async () => {
    const saved = await add({ currency: "EUR", country: "DE", details: { iban: "DE89370400440532013000" } });
    expectStatus(await admin.client.post("account/onbehalf", { on_behalf_of: owner.id }), 200);
    try {
      const res = await admin.client.put(`account/recipients/${saved.id}`, {
        ...person,
        currency: "EUR",
        country: "DE",
        details: { iban: "DE02120300000000202051" },
      });
      expectStatus(res, 200);
      expect(res.json.body.changes[0]).toMatchObject({
        kind: "details",
        by: "Ada Lovelace",
        on_behalf_by: admin.email,
      });
      const log = await admin.client.get(`console/audit?customer=${owner.id}`);
      expect(log.json.body).toContainEqual(expect.objectContaining({
        actor: expect.objectContaining({ id: admin.id }),
        subject_id: owner.id,
        action: "on-behalf.call",
        after: expect.objectContaining({ method: "PUT", path: `/api/account/recipients/${saved.id}` }),
      }));
    } finally {
      expectStatus(await admin.client.delete("account/onbehalf"), 200);
    }
  });
});

describe("deleting a recipient", () => {
  test("hides it from the list and from payments, keeps the row, and records the deletion", async () => {
    const saved = await add({
      name: "To Delete",
      currency: "EUR",
      country: "DE",
      details: { iban: "DE89370400440532013000" },
    });
    const res = await owner.client.delete(`account/recipients/${saved.id}`);
    expectStatus(res, 200);
    expect(res.json.body).toEqual({ id: saved.id, deleted: true });
    expectStatus(await owner.client.get(`account/recipients/${saved.id}`), 404);
    expectStatus(await owner.client.delete(`account/recipients/${saved.id}`), 404);
    const list = await owner.client.get("account/recipients?search=To%20Delete");
    expect(list.json.body.items).toEqual([]);
    await expect(recipientFor(t.db, await accountOf(owner.id), saved.id)).rejects.toMatchObject({ kind: "not_found" });
    const [row] = await t.db.select().from(recipients).where(eq(recipients.id, saved.id));
    expect(row.deletedAt).not.toBeNull();
    const changes = await t.db.select().from(recipientChanges).where(eq(recipientChanges.recipientId, saved.id));
    expect(changes.map((c) => c.kind)).toEqual(["created", "deleted"]);
  });
});

describe("the list", () => {
  test("is sorted by name, searchable by part of a name (case aside), and paginated", async () => {
    const fresh = await openCustomer(t);
    for (const name of ["zoë Zimmer", "Anna Adams", "Bob_Brown", "anna smith"]) {
      await add({ name, currency: "EUR", country: "DE", details: { iban: "DE89370400440532013000" } }, fresh.client);
    }
    const all = await fresh.client.get("account/recipients");
    expect(all.json.body.items.map((r: { name: string }) => r.name)).toEqual([
      "Anna Adams",
      "anna smith",
      "Bob_Brown",
      "zoë Zimmer",
    ]);
    expect(all.json.body.total).toBe(4);
    const anna = await fresh.client.get("account/recipients?search=ANNA");
    expect(anna.json.body.items.map((r: { name: string }) => r.name)).toEqual(["Anna Adams", "anna smith"]);
    // An underscore is a letter, not a wildcard.
    const underscore = await fresh.client.get("account/recipients?search=_");
    expect(underscore.json.body.items.map((r: { name: string }) => r.name)).toEqual(["Bob_Brown"]);
    const page2 = await fresh.client.get("account/recipients?page=2&per_page=3");
    expect(page2.json.body).toMatchObject({ page: 2, per_page: 3, total: 4 });
    expect(page2.json.body.items.map((r: { name: string }) => r.name)).toEqual(["zoë Zimmer"]);
  });

  test("the requirements call is not taken for a recipient's id", async () => {
    const res = await owner.client.get("account/recipients/requirements?currency=EUR&country=CH");
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({ scheme: "sepa", country: "CH" });
    expect(res.json.body.fields.map((f: { key: string; required: boolean }) => [f.key, f.required])).toEqual([
      ["iban", true],
      ["bic", true],
    ]);
  });
});

describe("Idempotency-Key", () => {
  test("the same add sent twice with one key saves one recipient", async () => {
    const before = await stored();
    const payload = { ...person, currency: "EUR", country: "DE", details: { iban: "DE89370400440532013000" } };
    const headers = { "Idempotency-Key": crypto.randomUUID() };
    const first = await owner.client.post("account/recipients", payload, headers);
    const second = await owner.client.post("account/recipients", payload, headers);
    expectStatus(first, 201);
    expectStatus(second, 201);
    expect(second.json.body.id).toBe(first.json.body.id);
    expect(await stored()).toEqual({ recipients: before.recipients + 1, changes: before.changes + 1 });
  });
});

describe("a visitor", () => {
  test("is refused every recipients call (401)", async () => {
    const visitor = new TestClient(t);
    expectStatus(await visitor.get("account/recipients"), 401);
    expectStatus(await visitor.post("account/recipients", {}), 401);
  });
});
