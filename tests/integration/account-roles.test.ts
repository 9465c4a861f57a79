import { beforeAll, describe, expect, test } from "vitest";
import * as accountUserCalls from "../../lib/contracts/account-users.ts";
import type { CallContract } from "../../lib/contracts/define.ts";
import * as moneyCalls from "../../lib/contracts/money.ts";
import { ACCOUNT_ROLES, type AccountRole } from "../../lib/permissions.ts";
import { businessOwner, type Member, memberWithRole } from "../helpers/account-users.ts";
import { type Admin, type ClientResponse, expectStatus, type TestClient, uniqueEmail } from "../helpers/client.ts";
import { fund, type MoneyApp, moneyApp, openCustomer } from "../helpers/money.ts";

/**
 * Each role sees and does only what lib/permissions.ts allows it, checked through the app: viewers
 * see, payers prepare (convert), approvers see (and approve, once payments exist), owners and
 * admins manage the account's users.
 */

let t: MoneyApp;
let admin: Admin;
const people = {} as Record<AccountRole, TestClient>;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  const owner = await businessOwner(t, admin);
  await fund(t, admin, owner, "EUR", "1000.00");
  people.owner = owner.client;
  for (const role of ACCOUNT_ROLES.filter((r) => r !== "owner")) {
    const member: Member = await memberWithRole(t, owner.client, role);
    people[role] = member.client;
  }
}, 120_000);

type Can = Record<AccountRole, boolean>;
const everyone: Can = { owner: true, admin: true, payer: true, approver: true, viewer: true };
const preparers: Can = { owner: true, admin: true, payer: true, approver: false, viewer: false };
const managers: Can = { owner: true, admin: true, payer: false, approver: false, viewer: false };

/** What a role may do, each as a call that answers 2xx when allowed and 403 when not. */
const ACTIONS: [string, Can, (client: TestClient) => Promise<ClientResponse>][] = [
  ["see the balances", everyone, (c) => c.get("account/balances")],
  ["see the conversions", everyone, (c) => c.get("account/conversions")],
  ["see how to fund the account", everyone, (c) => c.get("account/funding")],
  ["see the latest movements", everyone, (c) => c.get("account/movements")],
  ["see the account's users", everyone, (c) => c.get("account/users")],
  ["see the linked accounts", everyone, (c) => c.get("account/linked")],
  ["see the payments", everyone, (c) => c.get("account/payments")],
  ["see the payments' page", everyone, (c) => c.get("/account/payments")],
  [
    "get a conversion quote",
    preparers,
    (c) =>
      c.post("account/conversions/quote", {
        sell_currency: "EUR",
        buy_currency: "GBP",
        amount: "10.00",
        fixed: "sell",
      }),
  ],
  ["convert", preparers, async (c) => {
    // The owner's quote (a quote is the account's): only the conversion itself is the role's act.
    const quote = await people.owner.post("account/conversions/quote", {
      sell_currency: "EUR",
      buy_currency: "GBP",
      amount: "10.00",
      fixed: "sell",
    });
    expectStatus(quote, 200);
    return c.post("account/conversions", { quote_id: quote.json.body.id });
  }],
  ["see the invitations waiting", managers, (c) => c.get("account/invitations")],
  ["invite someone", managers, (c) => c.post("account/users", { email: uniqueEmail("invitee"), role: "viewer" })],
];

describe.each(ACCOUNT_ROLES)("a %s", (role) => {
  test.each(ACTIONS)(`may %s only if the role allows it`, async (_what, can, act) => {
    const res = await act(people[role]);
    if (can[role]) expect(res.status, res.text.slice(0, 300)).toBeLessThan(300);
    else {
      expectStatus(res, 403);
      expect(res.json.error).toBe("Your role on this account does not allow this.");
    }
  });

  test("is offered in the navigation only what the role may use", async () => {
    const page = await people[role].get("/account");
    expect(page.status).toBe(200);
    const nav = /<nav aria-label="Account"[\s\S]*?<\/nav>/.exec(page.text)?.[0] ?? "";
    expect(nav.includes('href="/account/convert"')).toBe(preparers[role]);
    expect(nav.includes('href="/account/payment"')).toBe(preparers[role]);
    expect(nav).toContain('href="/account/users"');
    expect(nav).toContain('href="/account/payments"');
    expect(page.text.includes('class="btn-primary" href="/account/convert"')).toBe(preparers[role]);
    // The dashboard's "Waiting for approval" card offers a payment only to whom may prepare one.
    const main = /<main[\s\S]*<\/main>/.exec(page.text)?.[0] ?? "";
    expect(main).toContain("Waiting for approval");
    expect(main.includes('href="/account/payment"')).toBe(preparers[role]);
  });

  test("the convert page converts, or says the role cannot", async () => {
    const page = await people[role].get("/account/convert");
    expect(page.status).toBe(200);
    const text = page.text.replaceAll("<!-- -->", "");
    expect(text.includes("on this account you cannot convert")).toBe(!preparers[role]);
    expect(page.text.includes('"name":"ConvertForm"')).toBe(preparers[role]);
  });

  test("the users page shows the approval rule, and the form that changes it only to an owner or admin", async () => {
    const page = await people[role].get("/account/users");
    expect(page.status).toBe(200);
    const text = page.text.replaceAll("<!-- -->", "");
    expect(text).toContain('<h2 id="approval-rule-heading" class="text-lg font-semibold">Approval of payments</h2>');
    expect(text).toContain("No payment needs approval: a payment is sent once it is made.");
    expect(text.includes('aria-label="Approval rule"')).toBe(role === "owner" || role === "admin");
  });
});

test("a personal account's users page has no approval rule: nobody else could approve", async () => {
  const personal = await openCustomer(t);
  const page = await personal.client.get("/account/users");
  expect(page.status).toBe(200);
  expect(page.text).toContain("This is a personal account");
  expect(page.text).not.toContain("Approval of payments");
});

describe("every call about the current account says which permission it needs", () => {
  /** Calls that must work before an account is chosen, or are about the person rather than the account. */
  const ABOUT_THE_LOGIN = new Set<CallContract>([accountUserCalls.listLinkedAccounts, accountUserCalls.selectAccount]);
  const calls = [...Object.values(moneyCalls), ...Object.values(accountUserCalls)].filter((value) =>
    typeof value === "object" && value !== null && "guards" in value && "method" in value
  ) as CallContract[];

  test.each(
    calls.filter((c) => c.guards.includes("has-account") && !ABOUT_THE_LOGIN.has(c)).map((c) => [
      `${c.method} ${c.path}`,
      c,
    ]),
  )("%s", (_name, call) => {
    expect(call.permission).toBeDefined();
  });
});
