import { and, desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { accountMembers, accounts, emails } from "../../db/schema.ts";
import { asSent } from "../helpers/mailbox.ts";
import { type Admin, signIn, TestClient } from "../helpers/client.ts";
import { type MoneyApp, moneyApp } from "../helpers/money.ts";
import {
  addMember,
  addRecipient,
  type Member,
  paid,
  type PaymentAccount,
  paymentAccount,
  setRule,
} from "../helpers/payments.ts";

/**
 * A link in a payment's email, opened by someone not signed in (the email read on a phone, the
 * session long gone): they sign in and land on the payment the email was about, not on their
 * dashboard, where nothing says which payment the email meant.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;
let account: PaymentAccount;
let payer: Member;
let approver: Member;
let recipient: number;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  account = await paymentAccount(t, admin, { GBP: "500.00" });
  payer = await addMember(t, account, "payer");
  approver = await addMember(t, account, "approver");
  recipient = await addRecipient(t, account, { name: "Jean Dupont", currency: "EUR", country: "FR" });
  await setRule(account.owner.client, { mode: "all" });
});

/** The first link of the newest email of `template` to `to`, as the person received it. */
async function linkOf(to: string, template: string): Promise<URL> {
  await t.services.emailOutbox.drain();
  const [row] = await t.db.select().from(emails).where(and(eq(emails.to, to), eq(emails.template, template)))
    .orderBy(desc(emails.id)).limit(1);
  expect(row, `an email ${template} to ${to}`).toBeDefined();
  const link = /https?:\/\/\S+/.exec((await asSent(t.db, row)).text)?.[0];
  expect(link, "a link in the email").toBeDefined();
  return new URL(link!);
}

describe("a payment's email opened signed out", () => {
  test("brings its reader to the payment once signed in", async () => {
    const payment = await paid(payer.client, { recipient_id: recipient, amount: "12.00", sell_currency: "GBP" });
    const link = await linkOf(approver.email, "payment-approval-needed");
    const path = `${link.pathname}${link.search}`;
    expect(path).toBe(`/account/pendingpayments/${payment.id}`);

    const visitor = new TestClient(t);
    const sent = await visitor.get(path);
    expect(sent.status).toBe(302);
    expect(sent.headers.get("location")).toBe("/#sign-in");

    await signIn(visitor, approver.email, approver.password);
    expect((await visitor.get("/auth")).headers.get("location")).toBe(path);
    const page = await visitor.get(path);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Jean Dupont");
    // Once: the next sign-in goes where it always did.
    expect((await visitor.get("/auth")).headers.get("location")).toBe("/account");
  });

  test("brings someone on several accounts to the payment, on its account, without asking which account first", async () => {
    // The approver is on a second account too: a sign-in usually asks which one to work on.
    const other = await paymentAccount(t, admin, { GBP: "10.00" });
    await t.db.insert(accountMembers).values({
      accountId: other.accountId,
      userId: approver.id,
      role: "viewer",
      createdAt: new Date(),
    });
    const payment = await paid(payer.client, { recipient_id: recipient, amount: "13.00", sell_currency: "GBP" });
    const link = await linkOf(approver.email, "payment-approval-needed");
    const path = link.pathname;
    expect(path).toBe(`/account/pendingpayments/${payment.id}`);

    const visitor = new TestClient(t);
    expect((await visitor.get(path)).headers.get("location")).toBe("/#sign-in");
    await signIn(visitor, approver.email, approver.password);
    expect((await visitor.get("/auth")).headers.get("location")).toBe(path);
    // The page takes the session to the payment's account, and comes back on it.
    const switched = await visitor.get(path);
    expect(switched.status).toBe(302);
    expect(switched.headers.get("location")).toBe(path);
    const page = await visitor.get(path);
    expect(page.status).toBe(200);
    expect(page.text).toContain("13.00");
  });

  test("a rate alert's link, the same", async () => {
    const visitor = new TestClient(t);
    const path = "/account/ratealerts?alert=1";
    expect((await visitor.get(path)).headers.get("location")).toBe("/#sign-in");
    await signIn(visitor, approver.email, approver.password);
    expect((await visitor.get("/auth")).headers.get("location")).toBe(path);
  });

  test("the calculator's Convert now, for someone on several accounts: asked which account, then the conversion", async () => {
    // The approver is on two accounts (the test above): the conversion page is about no one account,
    // so the sign-in asks which one to work on; the choice then comes back to the calculator's figures.
    const convert = "/account/convert?sell=GBP&buy=EUR&fixed=sell&amount=150.00";
    const visitor = new TestClient(t);
    expect((await visitor.get(convert)).headers.get("location")).toBe("/#sign-in");
    await signIn(visitor, approver.email, approver.password);
    expect((await visitor.get("/auth")).headers.get("location")).toBe(convert);
    expect((await visitor.get(convert)).headers.get("location")).toBe("/account-select");
    const [{ accountRef }] = await t.db.select({ accountRef: accounts.accountRef }).from(accounts)
      .where(eq(accounts.id, account.accountId));
    const chosen = await visitor.post("account/select", { account_ref: accountRef });
    expect(chosen.status).toBe(200);
    expect(chosen.json.redirect).toBe(convert);
    expect((await visitor.get(convert)).status).toBe(200);
    // Once: choosing again (the header's switch) goes to the dashboard, as it always did.
    expect((await visitor.post("account/select", { account_ref: accountRef })).json.redirect).toBe("/account");
  });
});
