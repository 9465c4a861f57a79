import { and, asc, eq, gt } from "drizzle-orm";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { accountMembers, accounts, emails } from "../../db/schema.ts";
import { notifications } from "../../db/schema-payments.ts";
import { rateAlerts } from "../../db/schema-ratealerts.ts";
import { momentInUtc } from "../../lib/moment.ts";
import { deserializeProps } from "../../lib/serialize.ts";
import { completePayment, failPayment, submitPayment } from "../../server/payments/transitions.ts";
import { type Admin, anotherAdmin, expectStatus } from "../helpers/client.ts";
import { expectLedgerSound, type MoneyApp, moneyApp, openCustomer } from "../helpers/money.ts";
import {
  addMember,
  addRecipient,
  approve,
  balanceOf,
  cancel,
  type Member,
  paid,
  type PaymentAccount,
  paymentAccount,
  reject,
  setRule,
} from "../helpers/payments.ts";

/**
 * Telling people (issue 8 item 6): approvers when a payment needs approval; its creator and the
 * account's owners when it is approved, rejected, sent, arrived or failed; never the person who did
 * it. In-app, on the next page they open; by email, after the commit, one email per person for
 * whatever they have not been emailed yet.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;
let account: PaymentAccount;
let payer: Member;
let approver: Member;
let viewer: Member;
let recipient: number;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  account = await paymentAccount(t, admin, { GBP: "5000.00" });
  payer = await addMember(t, account, "payer");
  approver = await addMember(t, account, "approver");
  viewer = await addMember(t, account, "viewer");
  recipient = await addRecipient(t, account, { name: "Jean Dupont", currency: "EUR", country: "FR" });
  await setRule(account.owner.client, { mode: "all" });
});

let mark = 0;
/** The emails sent since the last call, as [to, template], after the outbox has sent what waits. */
async function newEmails() {
  await t.services.emailOutbox.drain();
  const rows = await t.db.select().from(emails).where(gt(emails.id, mark)).orderBy(asc(emails.id));
  if (rows.length) mark = rows.at(-1)!.id;
  return rows;
}

const kindsFor = async (userId: number) =>
  (await t.db.select().from(notifications).where(eq(notifications.userId, userId)).orderBy(asc(notifications.id)))
    .map((n) => n.kind);

/** The pages the member opens until their queue hands nothing more: what they were told before is shown. */
async function seenAll(member: Pick<Member, "client">) {
  for (let pages = 0; pages < 20; pages++) {
    const page = await member.client.get("/account");
    expectStatus(page, 200);
    if (!page.text.includes("data-notification-id")) return;
  }
  throw new Error("The notifications never ran out");
}

const send = (amount: string) => paid(payer.client, { recipient_id: recipient, amount, sell_currency: "GBP" });

describe("approval needed", () => {
  test("the approvers (the owner and the approver) are told, not the payer or the viewer", async () => {
    await newEmails();
    const p = await send("10.00");
    const rows = await t.db.select().from(notifications).where(
      and(
        eq(notifications.kind, "payment_approval_needed"),
        eq(notifications.link, `/account/pendingpayments/${p.id}`),
      ),
    );
    expect(rows.map((r) => r.userId).sort()).toEqual([account.owner.id, approver.id].sort());
    expect(rows.map((r) => r.paymentId), "each names its payment, not only in its link").toEqual([p.id, p.id]);
    expect(rows[0]).toMatchObject({
      title: "A payment needs your approval",
      body: expect.stringMatching(/prepared a payment of \d+\.\d\d EUR to Jean Dupont \(10\.00 GBP debited\)/),
      accountId: account.accountId,
    });
    const sent = await newEmails();
    expect(sent.map((e) => [e.to, e.template]).sort()).toEqual(
      [[account.owner.email, "payment-approval-needed"], [approver.email, "payment-approval-needed"]].sort(),
    );
    expect(sent[0].subject).toBe("A payment needs your approval");
    expect(sent[0].text).toContain(`http://localhost/account/pendingpayments/${p.id}`);
    // Paid from pounds to a euro recipient: its rate holds for a day, and approving it later is refused.
    const until = momentInUtc(new Date(p.rate_held_until!));
    expect(rows[0].body).toContain(`Approve or reject it by ${until}, while its rate is guaranteed.`);
    expect(sent[0].text!.replace(/\s+/g, " ")).toContain(`by ${until}, while its rate is guaranteed.`);
    expect(await newEmails(), "each notice is emailed once").toEqual([]);
  });

  test("several at once make one email each, listing them", async () => {
    await newEmails();
    await send("2.00");
    await send("3.00");
    await send("4.00");
    const sent = await newEmails();
    expect(sent.map((e) => [e.to, e.template]).sort()).toEqual(
      [[account.owner.email, "payment-updates"], [approver.email, "payment-updates"]].sort(),
    );
    expect(sent[0].subject).toBe("3 updates on your payments");
    expect(sent[0].text).toContain("2.00 GBP debited");
    expect(sent[0].text).toContain("4.00 GBP debited");
  });
});

describe("decisions", () => {
  test("approved: the creator and the owners are told, not the approver", async () => {
    const p = await send("20.00");
    await newEmails();
    expectStatus(await approve(approver.client, p.id), 200);
    const sent = await newEmails();
    expect(sent.map((e) => [e.to, e.template]).sort()).toEqual(
      [[account.owner.email, "payment-approved"], [payer.email, "payment-approved"]].sort(),
    );
    expect(sent[0].text).toContain(`${approver.name} approved the payment of`);
    expect(await kindsFor(viewer.id)).toEqual([]);
  });

  test("rejected, with the reason", async () => {
    const p = await send("21.00");
    await newEmails();
    expectStatus(await reject(account.owner.client, p.id, "Not our supplier"), 200);
    const sent = await newEmails();
    // The approver was asked by email to approve it: it no longer waits for them either.
    expect(sent.map((e) => [e.to, e.template]).sort()).toEqual(
      [[approver.email, "payment-rejected"], [payer.email, "payment-rejected"]].sort(),
    );
    expect(sent[0].text).toContain("rejected the payment of");
    expect(sent[0].text).toContain("Not our supplier");
    expect(sent[0].text).toContain("The 21.00 GBP held for it is back in your balance.");
  });
});

describe("decided before anyone was told", () => {
  /** The notification queue handed to the page the member opens next (its toasts). */
  const toasts = async (member: Pick<Member, "client">) => {
    const page = await member.client.get("/account");
    expectStatus(page, 200);
    const islands = deserializeProps<{ name: string; props: { initial: { title: string; description: string }[] } }[]>(
      /id="__islands">([^<]*)</.exec(page.text)![1],
    );
    return islands.find((i) => i.name === "NotificationQueue")!.props.initial;
  };

  test("rejected a moment after it was prepared: nobody is asked to approve it, by email or toast", async () => {
    await newEmails();
    await seenAll(approver);
    await seenAll(account.owner);
    const p = await send("13.57");
    expectStatus(await reject(approver.client, p.id, "Wrong supplier"), 200);

    // The outbox runs after the rejection: the owner's "needs your approval" is not part of it.
    const sent = await newEmails();
    expect(sent.map((e) => [e.to, e.template]).sort()).toEqual(
      [[account.owner.email, "payment-rejected"], [payer.email, "payment-rejected"]].sort(),
    );
    expect(sent.map((e) => e.text).join("\n")).not.toContain("Approve or reject it");
    expect(await toasts(approver), "the approver who rejected it is told nothing").toEqual([]);
    const owners = await toasts(account.owner);
    expect(owners.map((n) => n.title)).toEqual(["Payment rejected"]);
    expect(owners[0].description).toContain("13.57 GBP");

    // Handled, not left waiting: neither queue offers them again.
    const asked = await t.db.select().from(notifications).where(
      and(
        eq(notifications.kind, "payment_approval_needed"),
        eq(notifications.link, `/account/pendingpayments/${p.id}`),
      ),
    );
    expect(asked.map((n) => n.userId).sort()).toEqual([account.owner.id, approver.id].sort());
    for (const n of asked) expect([n.emailedAt, n.deliveredAt]).not.toContain(null);
    expect(await newEmails()).toEqual([]);
  });

  test("whether an approval is still asked for is its payment's status, wherever the notice's link leads", async () => {
    await newEmails();
    await toasts(account.owner);
    const waiting = await send("14.11");
    // A notice that leads to the list of payments waiting rather than to the payment itself (as a
    // notice may once lead elsewhere): its payment is still waiting, so it is still asked for.
    await t.db.update(notifications).set({ link: "/account/pendingpayments" }).where(
      and(eq(notifications.link, `/account/pendingpayments/${waiting.id}`), eq(notifications.userId, account.owner.id)),
    );
    const owners = await toasts(account.owner);
    expect(owners.map((n) => n.description)).toEqual([expect.stringContaining("14.11 GBP debited")]);
    expect((await newEmails()).find((e) => e.to === account.owner.email)?.template).toBe("payment-approval-needed");
  });

  test("an approval still waiting is still asked for in the same email as one already decided", async () => {
    await newEmails();
    const decided = await send("14.01");
    await send("14.02");
    expectStatus(await approve(approver.client, decided.id), 200);
    const sent = await newEmails();
    const toApprover = sent.find((e) => e.to === approver.email)!;
    expect(toApprover.template, "one notice left: its own email, not a digest").toBe("payment-approval-needed");
    expect(toApprover.text).toContain("14.02 GBP debited");
    expect(toApprover.text).not.toContain("14.01 GBP debited");
  });
});

describe("the payout desk's steps", () => {
  test("sent, arrived and failed reach the creator and the owners; the ledger stays sound", async () => {
    const now = () => new Date(t.clock.now());
    const p = await send("30.00");
    expectStatus(await approve(approver.client, p.id), 200);
    await newEmails();
    await submitPayment(t.db, { paymentId: p.id, adminId: admin.id, railReference: "SIM-1", now: now() });
    expect((await newEmails()).map((e) => [e.to, e.template]).sort()).toEqual(
      [[account.owner.email, "payment-sent"], [payer.email, "payment-sent"]].sort(),
    );
    await completePayment(t.db, { paymentId: p.id, adminId: admin.id, now: now() });
    const arrived = await newEmails();
    expect(arrived.map((e) => e.template)).toEqual(["payment-arrived", "payment-arrived"]);
    expect(arrived[0].text).toContain("reached Jean Dupont's bank");
    const about = await t.db.select().from(notifications).where(
      eq(notifications.link, `/account/pendingpayments/${p.id}`),
    );
    expect(new Set(about.map((n) => n.kind))).toEqual(
      new Set(["payment_approval_needed", "payment_approved", "payment_sent", "payment_arrived"]),
    );
    expect(about.map((n) => n.paymentId), "every notice names its payment").toEqual(about.map(() => p.id));

    const before = await balanceOf(account.owner.client, "GBP");
    const q = await send("40.00");
    expectStatus(await approve(approver.client, q.id), 200);
    await submitPayment(t.db, { paymentId: q.id, adminId: admin.id, now: now() });
    await newEmails();
    await failPayment(t.db, { paymentId: q.id, adminId: admin.id, reason: "Account closed", now: now() });
    const failed = await newEmails();
    expect(failed.map((e) => [e.to, e.template]).sort()).toEqual(
      [[account.owner.email, "payment-failed"], [payer.email, "payment-failed"]].sort(),
    );
    expect(failed[0].text).toContain("could not be made: Account closed. 40.00 GBP is back in your balance.");
    expect(await balanceOf(account.owner.client, "GBP"), "refunded, the fee included").toEqual(before);
    await expectLedgerSound(t.db);
  });
});

describe("in the portal", () => {
  test("the next page hands new notifications to the notification queue, once", async () => {
    await seenAll(approver);
    const p = await send("5.00");
    const page = await approver.client.get("/account");
    expectStatus(page, 200);
    const islands = deserializeProps<{ name: string; props: { initial: { title: string; description: string }[] } }[]>(
      /id="__islands">([^<]*)</.exec(page.text)![1],
    );
    const queue = islands.find((i) => i.name === "NotificationQueue")!;
    expect(queue.props.initial.map((n) => n.title)).toContain("A payment needs your approval");
    expect(queue.props.initial.some((n) => n.description.includes("5.00 GBP debited"))).toBe(true);
    // Each toast leads to its payment (whose page switches to the payment's account if need be,
    // decision 060); the server renders the first five, each with its link.
    const initial = queue.props.initial as unknown as { description: string; link: { href: string } }[];
    expect(initial.find((n) => n.description.includes("5.00 GBP debited"))!.link).toEqual({
      href: `/account/pendingpayments/${p.id}`,
      text: "Open the payment",
    });
    const toasts = /<section aria-label="Notifications"[\s\S]*?<\/section>/.exec(page.text)![0];
    expect(toasts).toContain(`<a href="${initial[0].link.href}"`);
    expect(toasts).toContain(">Open the payment</a>");
    const again = await approver.client.get("/account");
    const later = deserializeProps<{ name: string; props: { initial: unknown[] } }[]>(
      /id="__islands">([^<]*)</.exec(again.text)![1],
    );
    expect(later.find((i) => i.name === "NotificationQueue")!.props.initial).toEqual([]);

    const listed = await approver.client.get("account/notifications");
    expectStatus(listed, 200);
    const latest = listed.json.body[0];
    expect(latest).toMatchObject({ kind: "payment_approval_needed", link: `/account/pendingpayments/${p.id}` });
    expect(latest.read).toBe(false);
    const read = await approver.client.post("account/notifications/read", { ids: [latest.id] });
    expect(read.json.body).toEqual({ read: 1 });
    expect((await approver.client.get("account/notifications")).json.body[0].read).toBe(true);
    // Someone else's ids change nothing.
    expect((await payer.client.post("account/notifications/read", { ids: [latest.id] })).json.body).toEqual({
      read: 0,
    });
  });
});

describe("more new notifications than a page shows at once", () => {
  /** The titles a page hands to its notification queue. */
  const queued = async (client: Member["client"], path = "/account") => {
    const page = await client.get(path);
    expectStatus(page, 200);
    const islands = deserializeProps<{ name: string; props: { initial: { title: string }[] } }[]>(
      /id="__islands">([^<]*)</.exec(page.text)![1],
    );
    return islands.find((i) => i.name === "NotificationQueue")!.props.initial.map((n) => n.title);
  };

  test("a page shows five; the others come on the next pages, none left waiting in a page the person may leave", async () => {
    const person = await addMember(t, account, "viewer");
    const titles = Array.from({ length: 7 }, (_, i) => `Rate alert ${i + 1}`);
    await t.db.insert(notifications).values(titles.map((title) => ({
      userId: person.id,
      accountId: account.accountId,
      kind: "rate_alert_fired",
      title,
      body: "The mid-market rate reached your target.",
      link: "/account/ratealerts",
      createdAt: new Date(),
    })));
    // The person follows a link on the first page at once: the two it did not show come next.
    expect(await queued(person.client)).toEqual(titles.slice(0, 5));
    expect(await queued(person.client, "/account/ratealerts")).toEqual(titles.slice(5));
    expect(await queued(person.client)).toEqual([]);
  });

  test("a page that also says something of its own (a switch of account) shows as many of them as fit beside it", async () => {
    // A viewer of the business account with a personal account of their own, working on it.
    const person = await openCustomer(t);
    await t.db.insert(accountMembers).values({
      accountId: account.accountId,
      userId: person.id,
      role: "viewer",
      createdAt: new Date(),
    });
    expectStatus(await person.client.post("account/select", { account_ref: person.accountRef }), 200);
    const [alert] = await t.db.insert(rateAlerts).values({
      accountId: account.accountId,
      createdBy: account.owner.id,
      sellCurrency: "GBP",
      buyCurrency: "EUR",
      targetRate: "9.99",
      direction: "above",
      createdAt: new Date(),
    }).returning();
    const titles = Array.from({ length: 5 }, (_, i) => `Rate alert ${i + 1}`);
    await t.db.insert(notifications).values(titles.map((title) => ({
      userId: person.id,
      accountId: account.accountId,
      kind: "rate_alert_fired",
      title,
      body: "The mid-market rate reached your target.",
      link: "/account/ratealerts",
      createdAt: new Date(),
    })));
    // The link of an alert of the business account switches to it (decision 060) and says so.
    const followed = await person.client.get(`/account/ratealerts?alert=${alert.id}`);
    // A browser sends the cookie back as it was set, encoded; this client's jar keeps it decoded.
    const flashed = followed.setCookies.find((cookie) => cookie.name === "flash")!.raw;
    person.client.setCookie("flash", /^flash=([^;]*)/.exec(flashed)![1]);
    expect(followed.status).toBe(302);
    expect(await queued(person.client, "/account/ratealerts")).toEqual([
      expect.stringMatching(/^You are now working on /),
      ...titles.slice(0, 4),
    ]);
    expect(await queued(person.client)).toEqual(titles.slice(4));
  });
});

describe("the dashboard's recent notifications", () => {
  test("lists the person's latest five about the account, newest first, each leading to its payment", async () => {
    await send("11.00");
    const p = await send("12.00");
    const page = await approver.client.get("/account");
    expectStatus(page, 200);
    const card = /id="recent-notifications-heading"[\s\S]*?<\/section>/.exec(page.text)![0];
    const items = card.split("<li").slice(1);
    expect(items).toHaveLength(5);
    expect(items[0]).toContain("A payment needs your approval");
    expect(items[0]).toContain("12.00 GBP debited");
    expect(items[0]).toContain(
      `<a class="font-medium text-primary-700 underline dark:text-primary-300" href="/account/pendingpayments/${p.id}">Open the payment</a>`,
    );
    expect(items[1]).toContain("11.00 GBP debited");
    // Shown as a toast on this page too: the list is not the queue, it keeps them.
    const again = await approver.client.get("/account");
    expect(/id="recent-notifications-heading"[\s\S]*?<\/section>/.exec(again.text)![0]).toContain("12.00 GBP debited");
    // Someone on the account who was told nothing is told so.
    const empty =
      /id="recent-notifications-heading"[\s\S]*?<\/section>/.exec((await viewer.client.get("/account")).text)![0];
    expect(empty).toContain("Nothing yet");
  });
});

describe("past notices of a payment decided since", () => {
  const card = async (member: Pick<Member, "client">) => {
    const page = await member.client.get("/account");
    expectStatus(page, 200);
    return /id="recent-notifications-heading"[\s\S]*?<\/section>/.exec(page.text)![0].split("<li").slice(1);
  };

  test("an approval asked for and since approved, rejected or cancelled no longer asks; one still waiting does", async () => {
    const approved = await send("15.01");
    const rejected = await send("15.02");
    const cancelled = await send("15.03");
    const waiting = await send("15.04");
    expectStatus(await approve(account.owner.client, approved.id), 200);
    expectStatus(await reject(account.owner.client, rejected.id, "Paid already"), 200);
    expectStatus(await cancel(payer.client, cancelled.id), 200);

    // The approver was told only "needs your approval" of each: the dashboard keeps them, as what
    // they are now (the payment's page, where each leads, says the rest).
    const items = await card(approver);
    const about = (amount: string) => items.find((i) => i.includes(`${amount} GBP debited`))!;
    expect(about("15.04")).toContain("A payment needs your approval");
    expect(about("15.04")).toMatch(/Approve or reject it by [^<]+ UTC, while its rate is guaranteed\./);
    expect(about("15.04")).toContain(`href="/account/pendingpayments/${waiting.id}">Open the payment</a>`);
    for (const [amount, now] of [["15.01", "approved"], ["15.02", "rejected"], ["15.03", "cancelled"]]) {
      expect(about(amount)).toContain("A payment needed your approval");
      expect(about(amount)).toContain(`It was ${now}: nothing for you to do.`);
      expect(about(amount)).not.toContain("Approve or reject");
      expect(about(amount)).not.toContain("needs your approval");
    }
    expect(about("15.01")).toContain(`href="/account/pendingpayments/${approved.id}">Open the payment</a>`);

    // The list of the calls (GET account/notifications) says the same.
    const listed = (await approver.client.get("account/notifications")).json.body as { title: string; body: string }[];
    const called = (amount: string) => listed.find((n) => n.body.includes(`${amount} GBP debited`))!;
    expect(called("15.04")).toMatchObject({ title: "A payment needs your approval" });
    expect(called("15.02")).toMatchObject({
      title: "A payment needed your approval",
      body: expect.stringMatching(/\(15\.02 GBP debited\)\. It was rejected: nothing for you to do\.$/),
    });
  });
});

describe("notices of an account one was removed from", () => {
  test("ask for nothing there any more, and do not tell what became of its payments", async () => {
    // Someone with an account of their own, also an approver here, then removed from here.
    const leaving = (await paymentAccount(t, admin, { GBP: "10.00" })).owner;
    await t.db.insert(accountMembers).values({
      accountId: account.accountId,
      userId: leaving.id,
      role: "approver",
      createdAt: new Date(),
    });
    const waiting = await send("16.01");
    const decided = await send("16.02");
    const theirs = async () =>
      ((await leaving.client.get("account/notifications")).json.body as { title: string; body: string }[])
        .filter((n) => n.body.includes("16.0"));
    expect((await theirs()).map((n) => n.title)).toEqual([
      "A payment needs your approval",
      "A payment needs your approval",
    ]);

    expectStatus(await account.owner.client.delete(`account/users/${leaving.id}`), 200);
    expectStatus(await reject(approver.client, decided.id, "Not this one"), 200);
    const after = await theirs();
    expect(after).toHaveLength(2);
    for (const n of after) {
      expect(n.title).toBe("A payment needed your approval");
      expect(n.body).toMatch(/You are no longer a user of this account: nothing for you to do\.$/);
      expect(n.body).not.toMatch(/rejected|approved|Approve or reject/);
    }
    expect(waiting.status).toBe("pending_approval");
  });

  test("a notice written before the removal and not yet seen is neither shown on their next page nor emailed", async () => {
    // A payer here with an account of their own, whose payment an owner cancels (they are told),
    // removed before they open a page or the outbox runs.
    const own = await paymentAccount(t, admin, { GBP: "10.00" });
    const leaving = own.owner;
    await t.db.insert(accountMembers).values({
      accountId: account.accountId,
      userId: leaving.id,
      role: "payer",
      createdAt: new Date(),
    });
    const refOf = async (id: number) =>
      (await t.db.select({ ref: accounts.accountRef }).from(accounts).where(eq(accounts.id, id)))[0].ref;
    expectStatus(await leaving.client.post("account/select", { account_ref: await refOf(account.accountId) }), 200);
    const p = await paid(leaving.client, { recipient_id: recipient, amount: "16.03", sell_currency: "GBP" });
    await newEmails();
    expectStatus(await cancel(account.owner.client, p.id, "Not from this account"), 200);
    expect(await kindsFor(leaving.id)).toContain("payment_cancelled");
    expectStatus(await account.owner.client.delete(`account/users/${leaving.id}`), 200);

    const emailed = await newEmails();
    expect(emailed.filter((e) => e.to === leaving.email).map((e) => e.template)).toEqual(["account-access-changed"]);
    expectStatus(await leaving.client.post("account/select", { account_ref: await refOf(own.accountId) }), 200);
    const page = await leaving.client.get("/account");
    expectStatus(page, 200);
    expect(page.text).not.toContain("Payment cancelled");
    expect(page.text).not.toContain("Not from this account");
  });
});

describe("the account it is about", () => {
  /** The account as the portal's header names it: its name, then its reference. */
  const named = async (accountId: number) => {
    const [row] = await t.db.select().from(accounts).where(eq(accounts.id, accountId));
    return `Account: ${row.name} ${row.accountRef}`;
  };

  test("an email names the account, once for a digest of one account, each notice's for a digest of two", async () => {
    const first = await named(account.accountId);
    await newEmails();
    await send("6.00");
    const single = (await newEmails()).find((e) => e.to === approver.email)!;
    expect(single.template).toBe("payment-approval-needed");
    expect(single.text).toContain(first);

    // The approver is on a second account too (linked accounts, issue 8 item 5), where a payment
    // also waits for them: "2 updates on your payments" must say which payment is whose.
    const other = await paymentAccount(t, admin, { GBP: "100.00" });
    await t.db.insert(accountMembers).values({
      accountId: other.accountId,
      userId: approver.id,
      role: "approver",
      createdAt: new Date(),
    });
    await setRule(other.owner.client, { mode: "all" });
    const theirs = await addRecipient(t, other, { name: "Hans Meier", currency: "EUR", country: "DE" });
    const second = await named(other.accountId);
    expect(second).not.toBe(first);
    await send("7.00");
    await paid(other.owner.client, { recipient_id: theirs, amount: "8.00", sell_currency: "GBP" });
    const digest = (await newEmails()).find((e) => e.to === approver.email)!;
    expect(digest.subject).toBe("2 updates on your payments");
    const text = digest.text!;
    expect(text.indexOf(first), "the first notice's account").toBeLessThan(text.indexOf("7.00 GBP debited"));
    expect(text.indexOf(second), "the second's, after the first notice").toBeGreaterThan(
      text.indexOf("7.00 GBP debited"),
    );
    expect(text.indexOf(second)).toBeLessThan(text.indexOf("8.00 GBP debited"));

    await send("9.00");
    await send("10.00");
    const ofOne = (await newEmails()).find((e) => e.to === approver.email)!;
    expect(ofOne.text!.split(first).length - 1, "named once, at the top").toBe(1);
    // The other account's dashboard lists its own notification only.
    expectStatus(await approver.client.post("account/select", { account_ref: other.owner.accountRef }), 200);
    const listed = /id="recent-notifications-heading"[\s\S]*?<\/section>/.exec(
      (await approver.client.get("/account")).text,
    )![0];
    expect(listed.split("<li").length - 1).toBe(1);
    expect(listed).toContain("8.00 GBP debited");
    // The call lists both accounts' notices, each naming the account it is about.
    const called = (await approver.client.get("account/notifications")).json.body as {
      body: string;
      account_ref: string | null;
    }[];
    expect(called.find((n) => n.body.includes("8.00 GBP debited"))?.account_ref).toBe(other.owner.accountRef);
    expect(called.find((n) => n.body.includes("10.00 GBP debited"))?.account_ref).toBe(account.owner.accountRef);
    // Back to one account, which the other tests' approver works on without choosing.
    expectStatus(await approver.client.post("account/select", { account_ref: account.owner.accountRef }), 200);
    await t.db.delete(accountMembers).where(
      and(eq(accountMembers.accountId, other.accountId), eq(accountMembers.userId, approver.id)),
    );
  });
});

describe("no longer waiting for the approvers asked", () => {
  const noticesAbout = async (paymentId: number) =>
    (await t.db.select().from(notifications).where(eq(notifications.paymentId, paymentId))
      .orderBy(asc(notifications.id))).map((n) => ({ user: n.userId, kind: n.kind, title: n.title, body: n.body }));

  /** The notifications the member's next page hands to the notification queue (its toasts). */
  const queueOf = async (member: Pick<Member, "client">) => {
    const page = await member.client.get("/account");
    expectStatus(page, 200);
    return deserializeProps<{ name: string; props: { initial: { title: string; description: string }[] } }[]>(
      /id="__islands">([^<]*)</.exec(page.text)![1],
    ).find((i) => i.name === "NotificationQueue")!.props.initial;
  };
  /** Opens pages until the member has seen every notification (a page hands at most ten). */
  const everyToastSeen = async (member: Pick<Member, "client">) => {
    while ((await queueOf(member)).length);
  };

  test("cancelled by its preparer: the approvers asked are told, by email as they were asked", async () => {
    const p = await send("31.00");
    await newEmails();
    expectStatus(await cancel(payer.client, p.id, "Paid by card instead"), 200);
    const told = (await noticesAbout(p.id)).filter((n) => n.kind === "payment_cancelled");
    expect(told.map((n) => n.user).sort()).toEqual([account.owner.id, approver.id].sort());
    expect(told[0]).toMatchObject({
      title: "Payment cancelled",
      body: expect.stringMatching(
        new RegExp(
          `^${payer.name} cancelled the payment of \\d+\\.\\d\\d EUR to Jean Dupont: Paid by card instead\\. ` +
            "It no longer needs your approval\\.$",
        ),
      ),
    });
    const sent = await newEmails();
    expect(sent.map((e) => [e.to, e.template]).sort()).toEqual(
      [[account.owner.email, "payment-cancelled"], [approver.email, "payment-cancelled"]].sort(),
    );
    expect(sent[0].subject).toBe("Payment cancelled");
    expect(await kindsFor(viewer.id), "the viewer was asked nothing").toEqual([]);
  });

  test("rejected by one approver: another approver asked is told, the one who rejected it is not", async () => {
    const admin2 = await addMember(t, account, "admin");
    try {
      const p = await send("32.00");
      await newEmails();
      expectStatus(await reject(approver.client, p.id, "Duplicate"), 200);
      const rejected = (await noticesAbout(p.id)).filter((n) => n.kind === "payment_rejected");
      expect(rejected.map((n) => n.user).sort()).toEqual([account.owner.id, admin2.id, payer.id].sort());
      expect((await newEmails()).map((e) => e.to).sort()).toEqual(
        [account.owner.email, admin2.email, payer.email].sort(),
      );
    } finally {
      await t.db.delete(accountMembers).where(eq(accountMembers.userId, admin2.id));
    }
  });

  test("asked only in the portal (no email yet): told in the portal, not emailed", async () => {
    await newEmails();
    await everyToastSeen(approver);
    await everyToastSeen(account.owner);
    const p = await send("33.00");
    // The approver opens a page before the email goes: the request is shown there.
    expect((await queueOf(approver)).map((n) => n.title)).toEqual(["A payment needs your approval"]);
    expectStatus(await cancel(payer.client, p.id), 200);
    const told = (await noticesAbout(p.id)).filter((n) => n.kind === "payment_cancelled");
    expect(told.map((n) => n.user), "the owner saw nothing of it: nothing to undo").toEqual([approver.id]);
    const queue = await queueOf(approver);
    expect(queue.map((n) => n.title)).toEqual(["Payment cancelled"]);
    expect(queue[0].description).toContain(`${payer.name} cancelled the payment of`);
    expect(await newEmails(), "nobody is emailed about it: nobody was emailed the request").toEqual([]);
  });

  test("someone asked and removed from the account since is told nothing", async () => {
    const leaving = await addMember(t, account, "approver");
    const p = await send("34.00");
    await newEmails();
    await t.db.delete(accountMembers).where(
      and(eq(accountMembers.userId, leaving.id), eq(accountMembers.accountId, account.accountId)),
    );
    expectStatus(await cancel(payer.client, p.id), 200);
    expect((await noticesAbout(p.id)).filter((n) => n.user === leaving.id).map((n) => n.kind))
      .toEqual(["payment_approval_needed"]);
    expect((await newEmails()).map((e) => e.to)).not.toContain(leaving.email);
  });

  test("cancelled once approved: nobody is asked anything any more, nobody is told", async () => {
    const p = await send("35.00");
    expectStatus(await approve(approver.client, p.id), 200);
    await newEmails();
    expectStatus(await cancel(payer.client, p.id), 200);
    expect((await noticesAbout(p.id)).filter((n) => n.kind === "payment_cancelled")).toEqual([]);
  });
});

describe("cancelled by someone else: its preparer is told", () => {
  const cancelledNotices = async (paymentId: number) =>
    (await t.db.select().from(notifications).where(
      and(eq(notifications.paymentId, paymentId), eq(notifications.kind, "payment_cancelled")),
    ).orderBy(asc(notifications.id))).map((n) => ({ user: n.userId, title: n.title, body: n.body }));

  test("an owner cancels a payment waiting: the preparer is told who cancelled it and why, by email too", async () => {
    const p = await send("36.00");
    await newEmails();
    expectStatus(await cancel(account.owner.client, p.id, "We paid this invoice already"), 200);
    const told = await cancelledNotices(p.id);
    // Each once; the approver asked, in the words of a request that no longer waits; the owner who
    // cancelled it, nothing.
    expect(told.map((n) => n.user).sort()).toEqual([approver.id, payer.id].sort());
    expect(told.find((n) => n.user === payer.id)).toEqual({
      user: payer.id,
      title: "Payment cancelled",
      body: expect.stringMatching(
        new RegExp(
          `^${account.owner.name} cancelled your payment of \\d+\\.\\d\\d EUR to Jean Dupont: ` +
            "We paid this invoice already\\. The 36\\.00 GBP held for it is back in your balance\\.$",
        ),
      ),
    });
    expect(told.find((n) => n.user === approver.id)!.body).toMatch(/It no longer needs your approval\.$/);
    const sent = await newEmails();
    expect(sent.map((e) => [e.to, e.template]).sort()).toEqual(
      [[approver.email, "payment-cancelled"], [payer.email, "payment-cancelled"]].sort(),
    );
    expect(sent.find((e) => e.to === payer.email)!.text).toContain(`${account.owner.name} cancelled your payment of`);
  });

  test("an owner cancels an approved payment: only the preparer is told, the approvers were asked nothing more", async () => {
    const p = await send("37.00");
    expectStatus(await approve(approver.client, p.id), 200);
    await newEmails();
    expectStatus(await cancel(account.owner.client, p.id), 200);
    const told = await cancelledNotices(p.id);
    expect(told.map((n) => n.user)).toEqual([payer.id]);
    expect(told[0].body).toMatch(/cancelled your payment of .* to Jean Dupont\. The 37\.00 GBP held for it is back/);
    expect((await newEmails()).map((e) => [e.to, e.template])).toEqual([[payer.email, "payment-cancelled"]]);
  });

  test("cancelled by our team on an owner's behalf: the preparer is told so", async () => {
    const staff = await anotherAdmin(t);
    const p = await send("38.00");
    expectStatus(await approve(approver.client, p.id), 200);
    expectStatus(await staff.client.post("account/onbehalf", { on_behalf_of: account.owner.id }), 200);
    try {
      expectStatus(await cancel(staff.client, p.id, "Asked by phone"), 200);
    } finally {
      expectStatus(await staff.client.delete("account/onbehalf"), 200);
    }
    const told = await cancelledNotices(p.id);
    expect(told.map((n) => n.user)).toEqual([payer.id]);
    expect(told[0].body).toMatch(
      new RegExp(
        `^.+ of our team \\(on behalf of ${account.owner.name}\\) cancelled your payment of .*: Asked by phone\\.`,
      ),
    );
  });

  test("cancelled by our team on the preparer's own behalf: they are told our team cancelled it, by email too", async () => {
    const staff = await anotherAdmin(t);
    const p = await send("38.50");
    await newEmails();
    expectStatus(await staff.client.post("account/onbehalf", { on_behalf_of: payer.id }), 200);
    try {
      expectStatus(await cancel(staff.client, p.id, "Asked by phone"), 200);
    } finally {
      expectStatus(await staff.client.delete("account/onbehalf"), 200);
    }
    const told = await cancelledNotices(p.id);
    // The preparer did not cancel it themselves: our team did, and says so; those asked to approve it
    // are told it no longer waits for them, in the same words.
    expect(told.map((n) => n.user).sort()).toEqual([account.owner.id, approver.id, payer.id].sort());
    expect(told.find((n) => n.user === payer.id)!.body).toMatch(
      new RegExp(
        `^.+ of our team \\(on behalf of ${payer.name}\\) cancelled your payment of .* to Jean Dupont: ` +
          "Asked by phone\\. The 38\\.50 GBP held for it is back in your balance\\.$",
      ),
    );
    expect(told.find((n) => n.user === approver.id)!.body).toMatch(
      new RegExp(
        `^.+ of our team \\(on behalf of ${payer.name}\\) cancelled the payment of .* It no longer needs your approval\\.$`,
      ),
    );
    expect((await newEmails()).map((e) => e.to)).toContain(payer.email);
  });

  test("a preparer removed from the account since is told nothing", async () => {
    const leaving = await addMember(t, account, "payer");
    const p = await paid(leaving.client, { recipient_id: recipient, amount: "39.00", sell_currency: "GBP" });
    await t.db.delete(accountMembers).where(
      and(eq(accountMembers.userId, leaving.id), eq(accountMembers.accountId, account.accountId)),
    );
    await newEmails();
    expectStatus(await cancel(account.owner.client, p.id), 200);
    expect((await cancelledNotices(p.id)).map((n) => n.user)).not.toContain(leaving.id);
    expect((await newEmails()).map((e) => e.to)).not.toContain(leaving.email);
  });
});
