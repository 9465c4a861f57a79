import { sql } from "drizzle-orm";
import { describe, expect, vi } from "vitest";
import { DERIVED_CHECK } from "../../db/derived.ts";
import { emails } from "../../db/schema.ts";
import { customerAccount, houseAccount, postTransfer } from "../../server/ledger/ledger.ts";
import { type Admin, type Customer, expectStatus, personalProfile, registerCustomer } from "../helpers/client.ts";
import { test } from "../helpers/fixtures.ts";
import { balances, customerWithoutAccount, fund, openCustomer } from "../helpers/money.ts";
import { accountIdOf } from "../helpers/payments.ts";

/**
 * What the console's customers list filters on, kept by the database (decision 052): the
 * onboarding step and whether the customer's accounts hold money are columns of users kept by
 * triggers, and the search reads an FTS5 table kept the same way. Whatever the customer did, the
 * kept values are the ones the tables say, and the list answers as it did when it derived them.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

type App = Parameters<typeof registerCustomer>[0] & { db: import("../../db/client.ts").Database };

/** Every customer whose kept step or balance flag differs from what their rows say now. */
async function drifted(app: App) {
  const rows = await app.db.all<
    { id: number; kept_step: string; step: string; kept_balance: number; has_balance: number }
  >(sql.raw(DERIVED_CHECK));
  return rows.filter((r) => r.kept_step !== r.step || Boolean(r.kept_balance) !== Boolean(r.has_balance));
}

async function stepOf(admin: Admin, customer: Customer, step: string): Promise<boolean> {
  const res = await admin.client.get(`console/users?step=${step}&q=${encodeURIComponent(customer.email)}`);
  expectStatus(res, 200);
  return (res.json.body.items as { id: number; step: string }[]).some((c) => c.id === customer.id && c.step === step);
}

async function listedWithBalance(admin: Admin, customer: Customer): Promise<boolean> {
  const res = await admin.client.get(`console/users?has_balance=true&q=${encodeURIComponent(customer.email)}`);
  expectStatus(res, 200);
  return (res.json.body.items as { id: number }[]).some((c) => c.id === customer.id);
}

describe("the onboarding step kept on the customer", () => {
  test("equals the step derived in every onboarding state, and follows each step", async ({ app, admin }) => {
    const unverified = await registerCustomer(app, { validate: false });
    const noProfile = await registerCustomer(app);
    const noIdentity = await registerCustomer(app);
    expectStatus(await noIdentity.client.post("account/profile", personalProfile()), 200);
    const retry = await registerCustomer(app);
    expectStatus(await retry.client.post("account/profile", personalProfile()), 200);
    expectStatus(await retry.client.post("sumsub/sandbox", { answer: "RED", reject_type: "RETRY" }), 200);
    const waiting = await customerWithoutAccount(app);
    const open = await openCustomer(app);

    expect(await stepOf(admin, unverified, "verify")).toBe(true);
    expect(await stepOf(admin, noProfile, "profile")).toBe(true);
    expect(await stepOf(admin, noIdentity, "identity")).toBe(true);
    expect(await stepOf(admin, retry, "identity")).toBe(true);
    expect(await stepOf(admin, waiting, "review")).toBe(true);
    expect(await stepOf(admin, open, "open")).toBe(true);
    expect(await drifted(app)).toEqual([]);

    // Each moves on: the identity passes on a second try, the review opens the account.
    expectStatus(await retry.client.post("sumsub/sandbox", { answer: "GREEN" }), 200);
    expect(await stepOf(admin, retry, "review") || await stepOf(admin, retry, "open")).toBe(true);
    expectStatus(
      await admin.client.post(`console/users/${waiting.id}/open-account`, {
        compliance: { done: true, amount: "100000", date: app.clock.today() },
      }),
      200,
    );
    expect(await stepOf(admin, waiting, "open")).toBe(true);
    expectStatus(await noProfile.client.post("account/profile", personalProfile()), 200);
    expect(await stepOf(admin, noProfile, "identity")).toBe(true);
    expect(await drifted(app)).toEqual([]);
  });
});

describe("the balance flag kept on the customer", () => {
  test("follows a funding, a full conversion out of it, and the money leaving", async ({ app, admin }) => {
    const ada = await openCustomer(app);
    expect(await listedWithBalance(admin, ada)).toBe(false);
    await fund(app, admin, ada, "GBP", "100.00");
    expect(await listedWithBalance(admin, ada)).toBe(true);

    const quote = await ada.client.post("account/conversions/quote", {
      sell_currency: "GBP",
      buy_currency: "EUR",
      amount: "100.00",
      fixed: "sell",
    });
    expectStatus(quote, 200);
    expectStatus(await ada.client.post("account/conversions", { quote_id: quote.json.body.id }), 201);
    const after = await balances(ada.client);
    expect(Number(after.GBP ?? "0")).toBe(0);
    // No pounds left, but euros: still money on the account.
    expect(await listedWithBalance(admin, ada)).toBe(true);
    expect(await drifted(app)).toEqual([]);

    // The euros leave through the ledger (as a payout would): no money left.
    const accountId = await accountIdOf(app.db, ada.id);
    await app.db.transaction(async (tx) => {
      const eur = await customerAccount(tx, accountId, "EUR");
      const payouts = await houseAccount(tx, "payouts", "EUR");
      await postTransfer(tx, {
        kind: "correction",
        description: "All of it out",
        entries: [{ ledgerAccountId: eur.id, amount: -eur.balance }, {
          ledgerAccountId: payouts.id,
          amount: eur.balance,
        }],
      });
    });
    expect(await listedWithBalance(admin, ada)).toBe(false);
    expect((await admin.client.get(`console/users?has_balance=false&q=${ada.email}`)).json.body.total).toBe(1);
    expect(await drifted(app)).toEqual([]);
  });
});

describe("the search table", () => {
  test("finds by name, a part or the start of the email, and the account reference, as they change", async ({ app, admin }) => {
    const ada = await openCustomer(app);
    const ids = async (q: string) =>
      ((await admin.client.get(`console/users?q=${encodeURIComponent(q)}`)).json.body.items as { id: number }[])
        .map((c) => c.id);
    const local = ada.email.split("@")[0];
    expect(await ids(local.slice(0, 8))).toContain(ada.id);
    expect(await ids(local.slice(3, 12).toUpperCase())).toContain(ada.id);
    expect(await ids(ada.accountRef.toLowerCase())).toEqual([ada.id]);
    // A text of one or two characters has no trigram: found all the same.
    expect(await ids(ada.accountRef.slice(-2))).toContain(ada.id);
    // A name saved, then changed (before the account opens): the old one finds nobody.
    const quinn = await registerCustomer(app);
    expectStatus(
      await quinn.client.post("account/profile", personalProfile({ first: "Quintessa", last: "Marlowvane" })),
      200,
    );
    expect(await ids("quintessa marlowvane")).toEqual([quinn.id]);
    expect(await ids("sa marl")).toEqual([quinn.id]);
    expectStatus(
      await quinn.client.post("account/profile", personalProfile({ first: "Ottoline", last: "Marlowvane" })),
      200,
    );
    expect(await ids("quintessa")).toEqual([]);
    expect(await ids("ottoline marlow")).toEqual([quinn.id]);
    // A quote or a search operator is text, not syntax.
    for (const q of ['"', 'a"b', "NEAR(x y)", "ref*", "%", "_"]) {
      expectStatus(await admin.client.get(`console/users?q=${encodeURIComponent(q)}`), 200);
    }
    expect(await ids("marlowvane OR x")).toEqual([]);
    expect(await drifted(app)).toEqual([]);
  });

  test("the emails' search finds a part of a recipient or a subject, on the search table", async ({ app, admin }) => {
    const now = new Date();
    const [row] = await app.db.insert(emails).values({
      to: "zephyrine.okonkwo@example.test",
      subject: "Your transfer Q7-ALPHA was sent",
      template: "bench",
      html: "<p>x</p>",
      text: "x",
      status: "stored",
      createdAt: now,
    }).returning({ id: emails.id });
    const found = async (q: string) =>
      ((await admin.client.get(`console/emails?q=${encodeURIComponent(q)}`)).json.body.items as { id: number }[])
        .map((e) => e.id);
    expect(await found("rine.okon")).toEqual([row.id]);
    expect(await found("q7-alpha")).toEqual([row.id]);
    expect(await found("Q7")).toContain(row.id);
    expect(await found("zephyrine.okonkwo@example.test")).toEqual([row.id]);
    expect(await found('alpha"')).toEqual([]);
  });
});
