import { beforeAll, describe, expect, test, vi } from "vitest";
import { and, desc, eq } from "drizzle-orm";
import { accountMembers, emails } from "../../db/schema.ts";
import { notifications } from "../../db/schema-payments.ts";
import { deserializeProps } from "../../lib/serialize.ts";
import { JobRunner } from "../../server/jobs/runner.ts";
import { RATE_ALERTS_PAGE, rateAlertCheckJob } from "../../server/ratealerts/check.ts";
import { businessOwner } from "../helpers/account-users.ts";
import { type Admin, expectStatus, signIn, TestClient } from "../helpers/client.ts";
import { fund, type MoneyApp, moneyApp, type OpenCustomer, openCustomer } from "../helpers/money.ts";
import { accountIdOf, addRecipient, paid, type PaymentAccount, setRule } from "../helpers/payments.ts";

/**
 * The link of an "approval needed" email opened while the approver works on another of their
 * accounts (decision 060): the page switches the session to the payment's account and says so. A
 * payment of an account the person does not belong to stays "not found".
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;
let business: OpenCustomer;
let account: PaymentAccount;
/** An approver of the business account who also has a personal account of their own. */
let approver: OpenCustomer;
let paymentId: number;
let recipientId: number;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  business = await businessOwner(t, admin);
  await fund(t, admin, business, "EUR", "5000.00");
  account = { accountId: await accountIdOf(t.db, business.id), owner: { ...business, name: "Acme" }, members: [] };
  approver = await openCustomer(t);
  await t.db.insert(accountMembers).values({
    accountId: account.accountId,
    userId: approver.id,
    role: "approver",
    createdAt: new Date(),
  });
  const recipient = await addRecipient(t, account, { name: "Jean Dupont", currency: "EUR", country: "FR" });
  recipientId = recipient;
  await setRule(business.client, { mode: "all" });
  const payment = await paid(business.client, { recipient_id: recipient, amount: "120.00", sell_currency: "EUR" });
  expect(payment.status).toBe("pending_approval");
  paymentId = payment.id;
});

/** The approver in a new browser, working on their personal account. */
async function onPersonalAccount(): Promise<TestClient> {
  const client = new TestClient(t);
  await signIn(client, approver.email, approver.password);
  expectStatus(await client.post("account/select", { account_ref: approver.accountRef }), 200);
  return client;
}

const currentRef = async (client: TestClient) =>
  ((await client.get("account/linked")).json.body as { account_ref: string; current: boolean }[])
    .find((a) => a.current)?.account_ref;

describe("the emailed link to a payment of another of the person's accounts", () => {
  test("switches the session to the payment's account, says so, and shows the payment", async () => {
    const client = await onPersonalAccount();
    const link = `/account/pendingpayments/${paymentId}`;
    const first = await client.get(link);
    expect(first.status).toBe(302);
    expect(first.headers.get("location")).toBe(link);
    // The notification goes with the redirect, for the page it leads to (the e2e test sees it shown).
    expect(first.setCookies.find((cookie) => cookie.name === "flash")?.value).toContain(
      "You are now working on Acme Trading Ltd.",
    );
    const page = await client.get(link);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`data-current-account="${business.accountRef}"`);
    expect(page.text).toContain("Invoice 17");
    expect(await currentRef(client)).toBe(business.accountRef);
  });

  test("a page fetched ahead (a preload on hover or focus) switches nothing and takes no notice", async () => {
    const client = await onPersonalAccount();
    const link = `/account/pendingpayments/${paymentId}`;
    const aheads: Record<string, string>[] = [{ "Sec-Purpose": "prefetch", Purpose: "prefetch" }, {
      Purpose: "prefetch",
    }];
    for (const headers of aheads) {
      const ahead = await client.get(link, headers);
      expect(ahead.status).toBe(404);
      expect(ahead.setCookies.map((cookie) => cookie.name)).not.toContain("flash");
      expect(await currentRef(client)).toBe(approver.accountRef);
    }
    // Following it still switches.
    expect((await client.get(link)).headers.get("location")).toBe(link);
    expect(await currentRef(client)).toBe(business.accountRef);
  });

  test("a session with two accounts and none chosen goes to the payment too", async () => {
    const client = new TestClient(t);
    await signIn(client, approver.email, approver.password);
    const link = `/account/pendingpayments/${paymentId}`;
    const first = await client.get(link);
    expect(first.headers.get("location")).toBe(link);
    expect((await client.get(link)).status).toBe(200);
    expect(await currentRef(client)).toBe(business.accountRef);
  });

  test("on the payment's account already, the page shows it at once", async () => {
    const page = await business.client.get(`/account/pendingpayments/${paymentId}`);
    expect(page.status).toBe(200);
    expect(page.setCookies.map((cookie) => cookie.name)).not.toContain("flash");
  });

  test("a payment of an account the person does not belong to is not found, and nothing switches", async () => {
    const stranger = await openCustomer(t);
    const page = await stranger.client.get(`/account/pendingpayments/${paymentId}`);
    expect(page.status).toBe(404);
    expect(page.text).not.toContain("Acme");
    expect(await currentRef(stranger.client)).toBe(stranger.accountRef);
    const client = await onPersonalAccount();
    expect((await client.get("/account/pendingpayments/999999")).status).toBe(404);
    expect(await currentRef(client)).toBe(approver.accountRef);
  });

  test("someone removed from the payment's account is told so, not sent to a bare 'Page not found'", async () => {
    // A payer of the business account, with a personal account of their own, got its emails; then an
    // owner removed them. They open the old link.
    const former = await openCustomer(t);
    await t.db.insert(accountMembers).values({
      accountId: account.accountId,
      userId: former.id,
      role: "payer",
      createdAt: new Date(),
    });
    expectStatus(await business.client.delete(`account/users/${former.id}`), 200);
    const page = await former.client.get(`/account/pendingpayments/${paymentId}`);
    expect(page.status).toBe(404);
    expect(page.text).toContain(
      `You are no longer a user of Acme Trading Ltd (${business.accountRef}): an owner or admin removed you.`,
    );
    // Nothing of the payment, and nothing switched.
    expect(page.text).not.toContain("Jean Dupont");
    expect(await currentRef(former.client)).toBe(former.accountRef);
  });

  test("an administrator acting on behalf keeps the account chosen: not found on the other one", async () => {
    expectStatus(await admin.client.post("account/onbehalf", { on_behalf_of: approver.id }), 200);
    try {
      expectStatus(await admin.client.post("account/select", { account_ref: approver.accountRef }), 200);
      expect((await admin.client.get(`/account/pendingpayments/${paymentId}`)).status).toBe(404);
      expect(await currentRef(admin.client)).toBe(approver.accountRef);
    } finally {
      expectStatus(await admin.client.delete("account/onbehalf"), 200);
    }
  });
});

describe("a call from a page of the account the person has since switched away from (another window)", () => {
  test("is refused with 409 account_changed naming the account now worked on, and does nothing", async () => {
    const client = await onPersonalAccount();
    // The business account's page, still open in a first window, approves its payment.
    const stale = { "X-Account-Ref": business.accountRef };
    const refused = await client.put(`account/pendingpayments/update?id=${paymentId}`, { action: "approve" }, stale);
    expectStatus(refused, 409);
    expect(refused.json).toMatchObject({
      code: "account_changed",
      error: expect.stringContaining(`(${approver.accountRef}) in another window, so nothing was done here:`),
    });
    expectStatus(await client.get("account/balances", stale), 409);
    // The payment still waits: nothing was approved on the account the page named or any other.
    const waiting = await business.client.get(`account/pendingpayments/one?id=${paymentId}`);
    expect(waiting.json.body.status).toBe("pending_approval");
    // A page of the account now worked on, or a client that names none (a script of the API), goes on.
    expectStatus(await client.get("account/balances", { "X-Account-Ref": approver.accountRef }), 200);
    expectStatus(await client.get("account/balances"), 200);
  });

  test("the payment's page loaded again after the refusal keeps the account chosen and says where the payment is", async () => {
    // The business account's payment page, open in a first window; the person switched to their
    // personal account in a second one, so the island's Approve was refused and loads the page again.
    const client = await onPersonalAccount();
    const link = `/account/pendingpayments/${paymentId}`;
    const reloaded = await client.get(`${link}?reloaded=account_changed`);
    expect(reloaded.status).toBe(200);
    expect(reloaded.setCookies.map((cookie) => cookie.name)).not.toContain("flash");
    expect(reloaded.text).toContain(`data-current-account="${approver.accountRef}"`);
    expect(reloaded.text).not.toContain("Invoice 17");
    expect(reloaded.text).toContain(`This payment is on Acme Trading Ltd (${business.accountRef}), not on`);
    expect(reloaded.text).toContain("Switch to Acme Trading Ltd and open the payment");
    expect(await currentRef(client)).toBe(approver.accountRef);
    // The way back is the payment's own address: following it switches, as the emailed link does.
    expect(reloaded.text).toContain(`href="${link}"`);
    expect((await client.get(link)).headers.get("location")).toBe(link);
    expect(await currentRef(client)).toBe(business.accountRef);
    // Someone who is not a user of the business account still finds nothing there.
    const stranger = await openCustomer(t);
    expect((await stranger.client.get(`${link}?reloaded=account_changed`)).status).toBe(404);
  });
});

describe("a download link on a page of the account the person has since switched away from (decision 075)", () => {
  /** What a browser sends when a person follows a link. */
  const FOLLOWED = { "Sec-Fetch-Mode": "navigate", Accept: "text/html,application/xhtml+xml,*/*;q=0.8" };
  const switched = () => `(${approver.accountRef}) in another window`;
  const flashOf = (res: { setCookies: { name: string; value: string }[] }) =>
    res.setCookies.find((cookie) => cookie.name === "flash")?.value ?? "";

  test("the transactions CSV of the page's account is not the file of the account now worked on", async () => {
    // The business account's transactions page, still open in a first window, links to its CSV.
    const client = await onPersonalAccount();
    const link = `account/transactions.csv?currency=EUR&account_ref=${business.accountRef}`;
    const followed = await client.get(link, FOLLOWED);
    // No file of the personal account: the page comes back, for the account now worked on, saying why.
    expect(followed.status).toBe(303);
    expect(followed.headers.get("location")).toBe("/account/transactions?currency=EUR");
    expect(followed.headers.get("content-disposition")).toBeNull();
    expect(flashOf(followed)).toContain(switched());
    // A client of the API gets the refusal an island's call gets.
    const called = await client.get(link);
    expectStatus(called, 409);
    expect(called.json).toMatchObject({ code: "account_changed" });
    // The link of a page of the account worked on downloads its file.
    const own = await client.get(`account/transactions.csv?account_ref=${approver.accountRef}`, FOLLOWED);
    expect(own.status).toBe(200);
    expect(own.headers.get("content-disposition")).toBe(
      `attachment; filename="transactions-${approver.accountRef}.csv"`,
    );
    // A page's own address names no account: it shows the account worked on, whatever it says.
    const page = await client.get(`/account/transactions?account_ref=${business.accountRef}`, FOLLOWED);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`data-current-account="${approver.accountRef}"`);
  });

  test("a statement's link brings the reports page back with the reason, never an error saved as the file", async () => {
    const client = await onPersonalAccount();
    const followed = await client.get(`account/statements/1/file?account_ref=${business.accountRef}`, FOLLOWED);
    expect(followed.status).toBe(303);
    expect(followed.headers.get("location")).toBe("/account/reports");
    expect(flashOf(followed)).toContain(switched());
    // Any refusal of a followed download link comes back to its page (a statement not found here).
    const missing = await client.get(`account/statements/999999/file?account_ref=${approver.accountRef}`, FOLLOWED);
    expect(missing.status).toBe(303);
    expect(missing.headers.get("location")).toBe("/account/reports");
    expect(flashOf(missing)).not.toBe("");
    expectStatus(await client.get(`account/statements/1/file?account_ref=${business.accountRef}`), 409);
  });
});

describe("the link of a fired rate alert of another of the person's accounts", () => {
  test("switches the session to the alert's account, in the notification and the email", async () => {
    // A payer of the business account, with a personal account of their own, sets an alert there.
    const payer = await openCustomer(t);
    await t.db.insert(accountMembers).values({
      accountId: account.accountId,
      userId: payer.id,
      role: "payer",
      createdAt: new Date(),
    });
    const client = new TestClient(t);
    await signIn(client, payer.email, payer.password);
    expectStatus(await client.post("account/select", { account_ref: business.accountRef }), 200);
    // 1 GBP = 1.137656 EUR now (the embedded rates).
    const alert = { sell_currency: "GBP", buy_currency: "EUR", target_rate: "1.15", direction: "above" };
    const created = await client.post("account/ratealerts", alert);
    expectStatus(created, 201);
    const alertId = created.json.body.id as number;
    // They go back to their personal account, and the rate crosses the target.
    expectStatus(await client.post("account/select", { account_ref: payer.accountRef }), 200);
    expectStatus(await admin.client.put("console/rates", { base: "EUR", rates: { GBP: "0.86" } }), 200);
    const runner = new JobRunner({
      db: t.db,
      jobs: [rateAlertCheckJob],
      deps: { config: t.config, services: t.services },
      now: t.clock.now,
    });
    await runner.drain();
    await t.services.emailOutbox.drain();

    const [notice] = await t.db.select().from(notifications).where(
      and(eq(notifications.userId, payer.id), eq(notifications.kind, "rate_alert_fired")),
    );
    const link = notice.link!;
    const [mail] = await t.db.select().from(emails).where(eq(emails.to, payer.email)).orderBy(desc(emails.id))
      .limit(1);
    expect(mail.template).toBe("rate-alert-fired");
    expect(mail.text).toContain(`http://localhost${link}`);

    // Followed from the personal account: the alerts of the business account, saying so.
    const first = await client.get(link);
    expect(first.status).toBe(302);
    expect(first.headers.get("location")).toBe(RATE_ALERTS_PAGE);
    expect(first.setCookies.find((cookie) => cookie.name === "flash")?.value).toContain(
      "You are now working on Acme Trading Ltd.",
    );
    const page = await client.get(RATE_ALERTS_PAGE);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`data-current-account="${business.accountRef}"`);
    expect(await currentRef(client)).toBe(business.accountRef);
    const listed = await client.get("account/ratealerts");
    expect((listed.json.body.items as { id: number }[]).map((a) => a.id)).toContain(alertId);

    // Someone who is not a user of the business account switches nothing with that link.
    const stranger = await openCustomer(t);
    const theirs = await stranger.client.get(link);
    expect(theirs.status).toBe(200);
    expect(theirs.setCookies.map((cookie) => cookie.name)).not.toContain("flash");
    expect(await currentRef(stranger.client)).toBe(stranger.accountRef);
  });
});

describe("a notification about another of the person's accounts, shown while they work on one", () => {
  /** The notification queue handed to the page the person opens next (its toasts). */
  const toasts = async (client: TestClient) => {
    const page = await client.get("/account");
    expectStatus(page, 200);
    const islands = deserializeProps<
      { name: string; props: { initial: { title: string; description: string; link?: { href: string } }[] } }[]
    >(/id="__islands">([^<]*)</.exec(page.text)![1]);
    return islands.find((i) => i.name === "NotificationQueue")!.props.initial;
  };

  test("names the account it is about, under the header of the account worked on", async () => {
    const client = await onPersonalAccount();
    // What was waiting is shown already: the next page hands only the new one.
    await t.db.update(notifications).set({ deliveredAt: new Date() }).where(eq(notifications.userId, approver.id));
    const payment = await paid(business.client, { recipient_id: recipientId, amount: "31.00", sell_currency: "EUR" });
    const [shown] = await toasts(client);
    expect(shown.title).toBe("A payment needs your approval");
    // Shown under the personal account's header: it says whose payment it is, and its link switches.
    expect(shown.description).toContain(`Acme Trading Ltd (${business.accountRef})`);
    expect(shown.link?.href).toBe(`/account/pendingpayments/${payment.id}`);
    expect(await currentRef(client)).toBe(approver.accountRef);

    // On the payment's account, the notification needs no such words.
    expectStatus(await client.post("account/select", { account_ref: business.accountRef }), 200);
    await paid(business.client, { recipient_id: recipientId, amount: "32.00", sell_currency: "EUR" });
    const [onIts] = await toasts(client);
    expect(onIts.title).toBe("A payment needs your approval");
    expect(onIts.description).not.toContain(business.accountRef);
  });
});
