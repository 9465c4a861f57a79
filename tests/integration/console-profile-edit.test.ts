import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { auditLog, profiles } from "../../db/schema.ts";
import { administrators } from "../../db/schema-console.ts";
import {
  type Admin,
  anotherAdmin,
  businessProfile,
  type Customer,
  expectStatus,
  personalProfile,
  registerCustomer,
} from "../helpers/client.ts";
import { latestEmail } from "../helpers/mailbox.ts";
import { customerWithoutAccount, type MoneyApp, moneyApp, type OpenCustomer, openCustomer } from "../helpers/money.ts";

/**
 * Support changes a customer's verified details (decision 078): the customer's own save is locked
 * once the identity check approved them (decision 071), so an administrator changes the fields
 * given on /console/users/{id}, under the customer's own rules, with a reason; the change is
 * audited with each field before and after, and the customer is emailed which details changed.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const SUPPORT = "help@fx.example.com";
const REASON = "Customer moved; proof of address received 2026-11-27";
const NEW_ADDRESS = {
  line1: "221B Baker Street",
  line2: "",
  city: "London",
  region: "",
  postcode: "NW1 6XE",
  country: "GB",
};

let t: MoneyApp;
let admin: Admin;
let ada: OpenCustomer;

beforeAll(async () => {
  ({ t, admin } = await moneyApp({ env: { SUPPORT_EMAIL: SUPPORT } }));
  ada = await openCustomer(t);
});

const change = (id: number, body: unknown, by: { client: Admin["client"] } = admin) =>
  by.client.put(`console/users/${id}/profile`, body);

async function savedOf(id: number) {
  const [row] = await t.db.select({ data: profiles.data, updatedAt: profiles.updatedAt }).from(profiles)
    .where(eq(profiles.userId, id));
  return row;
}

const entriesFor = (id: number) =>
  t.db.select().from(auditLog).where(and(eq(auditLog.subjectId, id), eq(auditLog.action, "customer.profile")));

describe("an administrator changes a verified Personal customer's address", () => {
  test("with a reason: stored, audited before and after, and the customer emailed the field's name", async () => {
    const before = await savedOf(ada.id);
    const res = await change(ada.id, { changes: { address: NEW_ADDRESS }, reason: REASON });
    expectStatus(res, 200);
    expect(res.json.body).toEqual({ changed: ["address"], updated_at: expect.any(String) });

    const after = await savedOf(ada.id);
    const data = after.data as Record<string, unknown>;
    expect(data.address).toEqual(NEW_ADDRESS);
    // Only the field given changed.
    expect({ ...data, address: null }).toEqual({ ...(before.data as Record<string, unknown>), address: null });

    const [entry] = await entriesFor(ada.id);
    expect(entry.actorId).toBe(admin.id);
    expect(entry.before).toEqual({ address: personalProfile().address });
    expect(entry.after).toEqual({ address: NEW_ADDRESS, reason: REASON });
    expect(entry.at.getTime()).toBe(after.updatedAt.getTime());

    const mail = await latestEmail(t.db, ada.email);
    expect(mail?.template).toBe("profile-changed");
    expect(mail?.subject).toBe("Your details were changed");
    expect(mail?.text).toContain("Address");
    expect(mail?.text).toContain(SUPPORT);
    // The field's name, never its value.
    expect(mail?.text).not.toContain("Baker Street");
  });

  test("the customer's own save is still refused afterwards (decision 071)", async () => {
    const res = await ada.client.post("account/profile", personalProfile({ address: NEW_ADDRESS }));
    expect(res.status).toBe(409);
    expect(res.json.error).toContain(SUPPORT);
  });

  test("an administrator acting on behalf of the customer cannot save it through the customer's call", async () => {
    const other = await anotherAdmin(t);
    expectStatus(await other.client.post("account/onbehalf", { on_behalf_of: ada.id }), 200);
    try {
      const res = await other.client.post("account/profile", personalProfile({ first: "Augusta" }));
      expect(res.status).toBe(409);
    } finally {
      expectStatus(await other.client.delete("account/onbehalf"), 200);
    }
    expect((await savedOf(ada.id)).data).toMatchObject({ first: "Ada", address: NEW_ADDRESS });
  });

  test("the console page shows the new address, who changed it, and the trail entry", async () => {
    const page = await admin.client.get(`/console/users/${ada.id}`);
    expect(page.status).toBe(200);
    const card = /<section aria-labelledby="profile-heading"[\s\S]*?<\/section>/.exec(page.text)?.[0] ?? "";
    expect(card).toContain("221B Baker Street, London, NW1 6XE");
    expect(card).toContain(`as last changed by ${admin.email} on `);
    const trail = /<section aria-labelledby="audit-heading"[\s\S]*?<\/section>/.exec(page.text)?.[0] ?? "";
    expect(trail).toContain("Changed the customer&#x27;s profile");
    expect(trail).toContain("address › line1: 10 Downing Street → 221B Baker Street");
  });

  test("an administrator with a name on the console is named by it, as the rest of the console names them", async () => {
    await t.db.insert(administrators).values({ userId: admin.id, name: "Olga Ops" })
      .onConflictDoUpdate({ target: administrators.userId, set: { name: "Olga Ops" } });
    try {
      const page = await admin.client.get(`/console/users/${ada.id}`);
      expect(page.text).toContain("as last changed by Olga Ops on ");
    } finally {
      await t.db.update(administrators).set({ name: "" }).where(eq(administrators.userId, admin.id));
    }
  });
});

describe("a Business customer's field", () => {
  test("the directors are changed, normalised as the customer's save would", async () => {
    const business = await customerWithoutAccount(t);
    const res = await change(business.id, {
      changes: { directors: ["  Grace  Hopper ", "Ada Lovelace"], website: "https://acme.example.com" },
      reason: "New director appointed: Companies House filing of 2026-11-20",
    });
    expectStatus(res, 200);
    // The website given is the one saved: only the directors changed.
    expect(res.json.body.changed).toEqual(["directors"]);
    const { phone: _, ...unchanged } = businessProfile();
    expect((await savedOf(business.id)).data).toMatchObject({
      ...unchanged,
      directors: ["Grace Hopper", "Ada Lovelace"],
    });
    const [entry] = await entriesFor(business.id);
    expect(entry.before).toEqual({ directors: ["Grace Hopper"] });
    expect(entry.after).toMatchObject({ directors: ["Grace Hopper", "Ada Lovelace"] });
  });
});

describe("a new name", () => {
  test("is the name of the account opened for them too: header, statements, console", async () => {
    const cara = await openCustomer(t);
    const before = (await cara.client.get("account/linked")).json.body[0].name as string;
    const res = await change(cara.id, { changes: { last: "Byron" }, reason: "Marriage certificate seen" });
    expectStatus(res, 200);
    const linked = await cara.client.get("account/linked");
    expect(linked.json.body[0].name).toBe("Ada Byron");
    const [entry] = await entriesFor(cara.id);
    expect(entry.before).toMatchObject({ last: "Lovelace", account_name: before });
    expect(entry.after).toMatchObject({ last: "Byron", account_name: "Ada Byron" });
  });
});

describe("refusals: nothing changed", () => {
  let bob: OpenCustomer;
  beforeAll(async () => {
    bob = await openCustomer(t);
  });

  const unchanged = async (id: number, saved: unknown) => {
    expect((await savedOf(id)).data).toEqual(saved);
    expect(await entriesFor(id)).toEqual([]);
  };

  test("a customer calling the console call gets the unknown call's 404", async () => {
    const saved = (await savedOf(bob.id)).data;
    const res = await change(bob.id, { changes: { first: "Robert" }, reason: REASON }, bob);
    expect(res.status).toBe(404);
    await unchanged(bob.id, saved);
  });

  test("bad input: 422 naming the field, nothing changed", async () => {
    const saved = (await savedOf(bob.id)).data;
    const badPostcode = await change(bob.id, {
      changes: { address: { ...NEW_ADDRESS, postcode: "" }, first: "Robert" },
      reason: REASON,
    });
    expect(badPostcode.status).toBe(422);
    expect(badPostcode.json.fields).toEqual({ "changes.address.postcode": "Postcode is required." });

    const tooYoung = await change(bob.id, { changes: { dob: "2020-01-01" }, reason: REASON });
    expect(tooYoung.status).toBe(422);
    expect(tooYoung.json.fields).toHaveProperty("changes.dob");

    const unknownField = await change(bob.id, { changes: { name: "Bob Ltd" }, reason: REASON });
    expect(unknownField.status).toBe(422);
    expect(unknownField.json.fields).toEqual({ "changes.name": "There is no field name on a Personal profile." });

    const noReason = await change(bob.id, { changes: { first: "Robert" }, reason: "  " });
    expect(noReason.status).toBe(422);
    expect(noReason.json.fields).toHaveProperty("reason");
    // Everything wrong at once: a bad postcode and no reason are both named in one refusal.
    const both = await change(bob.id, { changes: { address: { ...NEW_ADDRESS, postcode: "" } } });
    expect(both.status).toBe(422);
    expect(Object.keys(both.json.fields).sort()).toEqual(["changes.address.postcode", "reason"]);
    await unchanged(bob.id, saved);
  });

  test("no field changes: 422 'Nothing to change'", async () => {
    const saved = (await savedOf(bob.id)).data;
    const same = await change(bob.id, { changes: { first: " Ada ", last: "Lovelace" }, reason: REASON });
    expect(same.status).toBe(422);
    expect(same.json.error).toMatch(/^Nothing to change/);
    expect(same.json.fields).toHaveProperty("changes");
    const empty = await change(bob.id, { changes: {}, reason: REASON });
    expect(empty.status).toBe(422);
    expect(empty.json.error).toMatch(/^Nothing to change/);
    await unchanged(bob.id, saved);
  });

  test("no profile yet: 409, nothing to edit", async () => {
    const fresh: Customer = await registerCustomer(t, { type: "Personal" });
    const res = await change(fresh.id, { changes: { first: "Robert" }, reason: REASON });
    expect(res.status).toBe(409);
    expect(res.json.error).toContain("has not saved a profile yet");
    expect(await savedOf(fresh.id)).toBeUndefined();
  });

  test("an administrator's id or an unknown id: 404", async () => {
    for (const id of [admin.id, 999_999]) {
      const res = await change(id, { changes: { first: "Robert" }, reason: REASON });
      expect(res.status).toBe(404);
    }
  });
});
