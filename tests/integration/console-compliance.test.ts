import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { profiles } from "../../db/schema.ts";
import { REJECTION_REASON_TEXT } from "../../lib/compliance.ts";
import {
  type Admin,
  completeOnboarding,
  createAdmin,
  type Customer,
  expectStatus,
  personalProfile,
  registerCustomer,
  signIn,
  signinApp,
} from "../helpers/client.ts";
import { latestEmail } from "../helpers/mailbox.ts";
import { customerWithoutAccount } from "../helpers/money.ts";

/**
 * The compliance review (issue 14, finding 8): a reviewer can reject an application with a reason
 * the customer reads (by email and on /processing, with where to write to us), never the reviewer's
 * own note; a rejected customer's account cannot be opened later without a new review that says it
 * overrides the rejection; and the reviewer sees the answers that made the customer wait
 * (politically exposed, refused before, acting for someone else and for whom) beside the decision.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

type App = Awaited<ReturnType<typeof signinApp>>;
let t: App;
let admin: Admin;
const SUPPORT = "help@fx.example.com";

beforeAll(async () => {
  t = await signinApp({ env: { SUPPORT_EMAIL: SUPPORT } });
  admin = await createAdmin(t);
});

const NOTE = "Companies House shows the company dissolved in 2024";

async function whoami(customer: Customer) {
  const res = await customer.client.get("account/whoami");
  expectStatus(res, 200);
  return res.json.body as { account: boolean; account_ref: string | null };
}

describe("a reviewer rejects an application with a reason", () => {
  let customer: Customer;
  beforeAll(async () => {
    customer = await customerWithoutAccount(t);
  });

  test("the reason must be one the customer can be told, and a note for the file is required", async () => {
    const unknown = await admin.client.post(`console/users/${customer.id}/reject`, { reason: "fraud", note: NOTE });
    expectStatus(unknown, 422);
    expect(unknown.json.fields).toHaveProperty("reason");
    const noNote = await admin.client.post(`console/users/${customer.id}/reject`, { reason: "not_verified", note: "" });
    expectStatus(noNote, 422);
    expect(noNote.json.fields).toHaveProperty("note");
    const [row] = await t.db.select().from(profiles).where(eq(profiles.userId, customer.id));
    expect(row.rejectedAt).toBeNull();
  });

  test("POST console/users/{id}/reject records the rejection and answers the compliance record", async () => {
    const res = await admin.client.post(`console/users/${customer.id}/reject`, {
      reason: "not_verified",
      note: NOTE,
    });
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({
      done: false,
      rejection: {
        at: new Date(t.clock.now()).toISOString(),
        by: { id: admin.id, email: admin.email },
        reason: "not_verified",
        note: NOTE,
      },
    });
    expect((await whoami(customer)).account).toBe(false);
  });

  test("the customer is emailed the reason in words for customers and where to write, never the note", async () => {
    const mail = await latestEmail(t.db, customer.email);
    expect(mail?.template).toBe("application-rejected");
    expect(mail?.subject).toBe("We cannot open your account");
    expect(mail?.text).toContain(REJECTION_REASON_TEXT.not_verified.customer);
    expect(mail?.text).toContain(SUPPORT);
    expect(mail?.text).not.toContain("Companies House");
  });

  test("/processing says so, with the reason and the support contact", async () => {
    const page = await customer.client.get("/processing");
    expect(page.status).toBe(200);
    expect(page.text).toContain("We cannot open your account");
    expect(page.text).toContain(REJECTION_REASON_TEXT.not_verified.customer);
    expect(page.text).toContain(SUPPORT);
    expect(page.text).not.toContain("Companies House");
    expect(page.text).not.toContain("We will email you as soon as your account is open");
  });

  test("rejecting again is a 409", async () => {
    const res = await admin.client.post(`console/users/${customer.id}/reject`, {
      reason: "not_offered",
      note: "Again",
    });
    expectStatus(res, 409);
  });

  test("a review that does not say it overrides the rejection cannot open the account", async () => {
    const res = await admin.client.post(`console/users/${customer.id}/open-account`, {
      compliance: { done: true, amount: "100000", date: t.clock.today() },
    });
    expectStatus(res, 409);
    expect(res.json.error).toBe(
      `This application was rejected on ${t.clock.today()} (Could not be verified). To open the account, record a new review that overrides the rejection.`,
    );
    expect((await whoami(customer)).account).toBe(false);
  });

  test("a new review dated before the rejection is refused on its date", async () => {
    const res = await admin.client.post(`console/users/${customer.id}/open-account`, {
      compliance: { done: true, amount: "100000", date: "2026-01-15" },
      overrides_rejection: true,
    });
    expectStatus(res, 422);
    expect(res.json.fields).toHaveProperty("compliance.date");
    expect((await whoami(customer)).account).toBe(false);
  });

  test("a new review that overrides the rejection opens the account, and /processing is behind the customer", async () => {
    // The next day: both sign in again (a session lasts 12 hours at most).
    t.clock.advance(24 * 60 * 60 * 1000);
    await signIn(admin.client, admin.email, admin.password);
    await signIn(customer.client, customer.email, customer.password);
    const res = await admin.client.post(`console/users/${customer.id}/open-account`, {
      compliance: { done: true, amount: "100000", date: t.clock.today() },
      overrides_rejection: true,
    });
    expectStatus(res, 200);
    expect(res.json.body.account).toBe(true);
    const [row] = await t.db.select().from(profiles).where(eq(profiles.userId, customer.id));
    expect(row.rejectedAt).toBeNull();
    const page = await customer.client.get("/processing");
    expect(page.status).toBe(302);
  });

  test("an open account cannot be rejected: 409", async () => {
    const res = await admin.client.post(`console/users/${customer.id}/reject`, { reason: "not_offered", note: "Late" });
    expectStatus(res, 409);
  });
});

describe("a rejected customer is not opened by accident", () => {
  test("a Personal customer rejected before their identity check is not opened when the check then passes", async () => {
    const customer = await registerCustomer(t, { type: "Personal" });
    expectStatus(await customer.client.post("account/profile", personalProfile()), 200);
    const rejected = await admin.client.post(`console/users/${customer.id}/reject`, {
      reason: "not_eligible",
      note: "Lives in a country we do not serve",
    });
    expectStatus(rejected, 200);
    expectStatus(await customer.client.post("sumsub/sandbox", { answer: "GREEN" }), 200);
    const confirmed = await customer.client.get("sumsub/confirm");
    expectStatus(confirmed, 200);
    expect(confirmed.json.body).toMatchObject({ identity: true, account: false });
    expect((await whoami(customer)).account).toBe(false);
  });
});

describe("the reviewer sees why a customer waits, beside the decision", () => {
  test("the customer's console page shows the politically exposed, refused-before and agency answers, and for whom", async () => {
    const customer = await registerCustomer(t, { type: "Personal" });
    await completeOnboarding(customer, {
      profile: personalProfile({ public: true, denial: true, agency: true, agency_of: "My brother, Charles Babbage" }),
    });
    expect((await whoami(customer)).account).toBe(false);
    const page = await admin.client.get(`/console/users/${customer.id}`);
    expect(page.status).toBe(200);
    const text = page.text.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
    expect(text).toContain("Compliance review");
    expect(text).toContain("Politically exposed person Yes");
    expect(text).toContain("Refused an account before Yes");
    expect(text).toContain("Acting on behalf of someone else Yes: My brother, Charles Babbage");
  });

  test("a customer who raised no flag shows No for each", async () => {
    const customer = await customerWithoutAccount(t);
    const page = await admin.client.get(`/console/users/${customer.id}`);
    const text = page.text.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
    // A business has none of these answers: the page says so rather than showing "No".
    expect(text).toContain("Compliance review");
    expect(text).toContain("Business customers are always reviewed");
    const person = await registerCustomer(t, { type: "Personal" });
    expectStatus(await person.client.post("account/profile", personalProfile()), 200);
    const personPage = await admin.client.get(`/console/users/${person.id}`);
    const personText = personPage.text.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
    expect(personText).toContain("Politically exposed person No");
    expect(personText).toContain("Refused an account before No");
    expect(personText).toContain("Acting on behalf of someone else No");
  });
});

describe("the reviewer sees the whole profile they approve", () => {
  const profileSection = (html: string) => {
    const text = html.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
    return text.slice(text.indexOf(" Profile What the customer told us"), text.indexOf(" Partner Registered"));
  };

  test("a person's page shows name, birth date, address, passport, work and money answers in words", async () => {
    const person = await registerCustomer(t, { type: "Personal" });
    expectStatus(await person.client.post("account/profile", personalProfile({ position: "Analyst" })), 200);
    const shown = profileSection((await admin.client.get(`/console/users/${person.id}`)).text);
    for (
      const fact of [
        "First name Ada",
        "Last name Lovelace",
        "Date of birth 1990-05-17",
        "Phone number +447911123456",
        "Passport number Passport 123456789",
        "Address 10 Downing Street, London, SW1A 2AA, United Kingdom (GB)",
        "Employment status Employed",
        "Job title Analyst",
        "Expected annual amount they will send 50000",
        "Main source of funds Salary",
        "Purposes of the account Family support",
        "For their personal use Yes",
        "How they heard about us Not given",
      ]
    ) expect(shown).toContain(fact);
    expect(shown).not.toContain("{");
  });

  test("a business's page shows the company, its country, address, directors and owners", async () => {
    const business = await customerWithoutAccount(t);
    const shown = profileSection((await admin.client.get(`/console/users/${business.id}`)).text);
    for (
      const fact of [
        "Company name Acme Trading Ltd",
        "Company registration number 12345678",
        "Date of incorporation 2015-03-01",
        "Country of incorporation United Kingdom (GB)",
        "Registered address 1 High Street, Suite 4, Leeds, West Yorkshire, LS1 1AA",
        "Nature of business Import and export of machine parts",
        "Contact person Grace Hopper",
        "Directors Grace Hopper",
        "Ultimate beneficial owners Grace Hopper",
      ]
    ) expect(shown).toContain(fact);
  });

  test("before a profile is saved the page says so", async () => {
    const fresh = await registerCustomer(t, { type: "Personal" });
    const text = (await admin.client.get(`/console/users/${fresh.id}`)).text.replace(/<[^>]+>/g, " ");
    expect(text).toContain("The customer has not saved a profile yet.");
  });
});
