import { UNSUBSCRIBE_NOT_SHOWN } from "../../server/bulkemails/mails.ts";
import { and, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { bulkEmailRecipients, bulkEmails, marketingConsents } from "../../db/schema-bulkemails.ts";
import { ledgerAccounts } from "../../db/schema-money.ts";
import { accountMembers, accounts, auditLog, emails, profiles, users } from "../../db/schema.ts";
import { partners } from "../../db/schema-partners.ts";
import { batchSize, bulkEmailJob } from "../../server/bulkemails/job.ts";
import { createBulkEmail, sendBulkEmail } from "../../server/bulkemails/service.ts";
import { JobRunner } from "../../server/jobs/runner.ts";
import { insertCustomers } from "../helpers/bulk-customers.ts";
import { type Admin, createAdmin, expectStatus, registerCustomer, signinApp, TestClient } from "../helpers/client.ts";
import { testJobDeps } from "../helpers/jobs.ts";
import { readable, type ReceivedMail, startSmtp } from "../helpers/smtp.ts";

/**
 * Bulk emails (issue 11 item 5, decision 050): an administrator writes one, chooses a segment,
 * previews it with a customer's data and sends it; a background job mails each recipient once
 * through SMTP; every mail's unsubscribe link works without signing in, and later bulk emails
 * honour it while the portal's other emails still reach the customer.
 */

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

type App = Awaited<ReturnType<typeof signinApp>>;
let t: App;
let admin: Admin;
let smtp: Awaited<ReturnType<typeof startSmtp>>;

beforeAll(async () => {
  smtp = await startSmtp();
  t = await signinApp({ env: { BULK_EMAIL_RATE: "10000" } });
  admin = await createAdmin(t);
});
afterAll(() => smtp.close());

async function runJobs() {
  const deps = await testJobDeps(t.db, { SMTP_URL: smtp.url });
  await new JobRunner({ db: t.db, jobs: [bulkEmailJob], deps, now: t.clock.now }).drain();
}

/** A day nobody else in this file signed up on: each test's customers are a segment of their own. */
const onDay = (day: string) => ({ signed_up_from: day, signed_up_to: day });
const at = (day: string) => new Date(`${day}T12:00:00Z`);

async function draft(segment: Record<string, unknown>, fields: { subject?: string; body?: string } = {}) {
  const res = await admin.client.post("console/bulkemails", {
    subject: fields.subject ?? "News for {{first_name}}",
    body: fields.body ?? "Hello {{name}},\n\nOur rates got better.\nSee you soon.",
    segment,
  });
  expectStatus(res, 201);
  return res.json.body as { id: number; status: string };
}

const bulkEmail = async (id: number, query = "") => {
  const res = await admin.client.get(`console/bulkemails/${id}${query}`);
  expectStatus(res, 200);
  return res.json.body;
};

const unsubscribeLinkOf = (mail: ReceivedMail) => /List-Unsubscribe: <([^>]+)>/.exec(readable(mail))![1];
const mailsTo = (address: string) => smtp.received.filter((m) => m.to.includes(address));

describe("a bulk email", () => {
  test("goes to 2,000 customers through a real SMTP server, exactly one mail each", async () => {
    const people = await insertCustomers(t.db, 2_000, { prefix: "two-thousand", createdAt: at("2021-05-05") });
    const { id } = await draft(onDay("2021-05-05"));
    const before = await bulkEmail(id);
    expect(before).toMatchObject({ status: "draft", segment_size: 2_000, progress: null });

    const sent = await admin.client.post(`console/bulkemails/${id}/send`, {});
    expectStatus(sent, 202);
    expect(sent.json.body).toMatchObject({ status: "queued", counts: { total: 2_000, pending: 2_000 } });
    await runJobs();

    const done = await bulkEmail(id);
    expect(done).toMatchObject({
      status: "done",
      counts: { total: 2_000, sent: 2_000, pending: 0, sending: 0, failed: 0, in_doubt: 0 },
      progress: { done: 2_000, total: 2_000 },
    });
    const perRecipient = smtp.perRecipient();
    expect(people.filter((p) => perRecipient.get(p.email) !== 1)).toEqual([]);
    // Each with their own name and their own unsubscribe link.
    const mail = readable(mailsTo(people[41].email)[0]);
    expect(mail).toContain("Subject: News for Ada42");
    expect(mail).toContain("Hello Ada42 Lovelace,");
    expect(unsubscribeLinkOf(mailsTo(people[41].email)[0])).not.toBe(unsubscribeLinkOf(mailsTo(people[42].email)[0]));
    // The recipients a page at a time, each with its state.
    const page = await bulkEmail(id, "?page=2&per_page=100&state=sent");
    expect(page.recipients).toMatchObject({ page: 2, per_page: 100, total: 2_000 });
    expect(page.recipients.items[0]).toMatchObject({ user_id: people[100].id, state: "sent", error: null });
    // A bulk email is sent once: a second send is refused.
    expectStatus(await admin.client.post(`console/bulkemails/${id}/send`, {}), 409);
  });

  test("previews with a real customer's data, escaped in the HTML, and refuses a merge field that does not exist", async () => {
    const [person] = await insertCustomers(t.db, 1, { prefix: "preview", createdAt: at("2021-06-06") });
    await t.db.update(profiles).set({ data: { first: "Zoë <b>", last: "O'Neil", address: { country: "GB" } } })
      .where(eq(profiles.userId, person.id));
    const { id } = await draft(onDay("2021-06-06"), { body: "Dear {{name}} ({{email}}), account {{account_ref}}." });
    const preview = await admin.client.get(`console/bulkemails/${id}/preview`);
    expectStatus(preview, 200);
    expect(preview.json.body).toMatchObject({
      user_id: person.id,
      to: person.email,
      in_segment: true,
      subject: "News for Zoë <b>",
    });
    expect(preview.json.body.html).toContain("Dear Zoë &lt;b&gt; O&#x27;Neil (preview-1@bulk.test), account .");
    expect(preview.json.body.text).toContain("Dear Zoë <b> O'Neil (preview-1@bulk.test)");
    expect(preview.json.body.text).toContain("/unsubscribe?token=preview");
    // Any customer's data, in the segment or not; never an administrator's.
    const other = await admin.client.get(`console/bulkemails/${id}/preview?user_id=${admin.id}`);
    expectStatus(other, 404);

    const wrong = await admin.client.post("console/bulkemails", {
      subject: "Hi",
      body: "Hello {{frist_name}}",
      segment: {},
    });
    expectStatus(wrong, 422);
    expect(wrong.json.fields.body).toContain("{{frist_name}}");
  });
});

describe("the throttle", () => {
  test("sends no faster than the rate the email was sent at", async () => {
    const people = await insertCustomers(t.db, 30, { prefix: "throttled", createdAt: at("2021-07-07") });
    const store = () => Promise.resolve();
    const now = new Date(t.clock.now());
    const { id } = await createBulkEmail(
      t.db,
      admin.id,
      { subject: "Slow", body: "Hi", segment: onDay("2021-07-07") },
      now,
      store,
    );
    // 20 a second: batches of 10, each taking at least half a second.
    expect(batchSize(20)).toBe(10);
    await sendBulkEmail(t.db, admin.id, id, 20, now, store);
    const started = performance.now();
    await runJobs();
    // Each batch of 10 takes at least its half second: 30 mails at 20 a second take 1.5 s, not a blink.
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_450);
    expect(people.filter((p) => mailsTo(p.email).length !== 1)).toEqual([]);
    expect(await bulkEmail(id)).toMatchObject({ status: "done", rate_per_second: 20, counts: { sent: 30 } });
  });
});

describe("the throttle at a low rate", () => {
  test("never sends more in a second than the rate: 4 mails at 2 a second go 2 by 2, a second apart", async () => {
    const people = await insertCustomers(t.db, 4, { prefix: "trickle", createdAt: at("2021-07-08") });
    const store = () => Promise.resolve();
    const now = new Date(t.clock.now());
    const { id } = await createBulkEmail(
      t.db,
      admin.id,
      { subject: "Trickle", body: "Hi", segment: onDay("2021-07-08") },
      now,
      store,
    );
    expect(batchSize(1)).toBe(1);
    expect(batchSize(2)).toBe(2);
    await sendBulkEmail(t.db, admin.id, id, 2, now, store);
    await runJobs();
    const arrivals = people.map((p) => mailsTo(p.email)).map((mails) => {
      expect(mails).toHaveLength(1);
      return mails[0].at;
    }).sort((a, b) => a - b);
    // The third mail is at least a second after the first: no second holds more than 2.
    expect(arrivals[2] - arrivals[0]).toBeGreaterThanOrEqual(950);
    expect(await bulkEmail(id)).toMatchObject({ status: "done", rate_per_second: 2, counts: { sent: 4 } });
  });
});

describe("a mail server's refusal", () => {
  test("of one address fails that recipient with the reason and sends the others", async () => {
    const people = await insertCustomers(t.db, 3, { prefix: "refused", createdAt: at("2021-08-08") });
    const picky = await startSmtp(() => {}, (address) => address === people[1].email);
    try {
      const { id } = await draft(onDay("2021-08-08"));
      expectStatus(await admin.client.post(`console/bulkemails/${id}/send`, {}), 202);
      const deps = await testJobDeps(t.db, { SMTP_URL: picky.url });
      await new JobRunner({ db: t.db, jobs: [bulkEmailJob], deps, now: t.clock.now }).drain();
      const done = await bulkEmail(id, "?state=failed");
      expect(done).toMatchObject({ status: "done", counts: { total: 3, sent: 2, failed: 1 } });
      expect(done.recipients.items).toMatchObject([{ user_id: people[1].id, state: "failed" }]);
      expect(done.recipients.items[0].error).toContain("No such mailbox here");
      expect([...picky.perRecipient().keys()].sort()).toEqual([people[0].email, people[2].email]);
      // The console's emails say the same of each mail (decision 061).
      const failed = await admin.client.get(`console/emails?q=${encodeURIComponent(people[1].email)}`);
      expect(failed.json.body.items).toMatchObject([{ bulk_email_id: id, status: "failed" }]);
      const sent = await admin.client.get(`console/emails?q=${encodeURIComponent(people[0].email)}`);
      expect(sent.json.body.items).toMatchObject([{ bulk_email_id: id, status: "sent" }]);
    } finally {
      await picky.close();
    }
  });

  test("of a whole wave's addresses still sends the rest of the batch (the server is not down)", async () => {
    // The batch holds all 12 (the rate is high); its first wave (5) is refused whole.
    const people = await insertCustomers(t.db, 12, { prefix: "wave-refused", createdAt: at("2021-08-18") });
    const refused = new Set(people.slice(0, 5).map((p) => p.email));
    const picky = await startSmtp(() => {}, (address) => refused.has(address));
    try {
      const { id } = await draft(onDay("2021-08-18"));
      expectStatus(await admin.client.post(`console/bulkemails/${id}/send`, {}), 202);
      const deps = await testJobDeps(t.db, { SMTP_URL: picky.url });
      await new JobRunner({ db: t.db, jobs: [bulkEmailJob], deps, now: t.clock.now }).drain();
      expect(await bulkEmail(id)).toMatchObject({ status: "done", counts: { total: 12, sent: 7, failed: 5 } });
      expect([...picky.perRecipient().keys()].sort()).toEqual(people.slice(5).map((p) => p.email).sort());
    } finally {
      await picky.close();
    }
  });
});

describe("a mail server that is down", () => {
  test("leaves the batch waiting, and a later attempt sends it, nobody twice", async () => {
    const people = await insertCustomers(t.db, 3, { prefix: "down", createdAt: at("2021-09-09") });
    const { id } = await draft(onDay("2021-09-09"));
    expectStatus(await admin.client.post(`console/bulkemails/${id}/send`, {}), 202);
    // Nothing listens on this port.
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const closedPort = (listener.addr as Deno.NetAddr).port;
    listener.close();
    const down = await testJobDeps(t.db, { SMTP_URL: `smtp://127.0.0.1:${closedPort}` });
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    await new JobRunner({ db: t.db, jobs: [bulkEmailJob], deps: down, now: t.clock.now }).drain();
    quiet.mockRestore();
    const waiting = await bulkEmail(id);
    expect(waiting).toMatchObject({ status: "queued", counts: { total: 3, pending: 3, sent: 0, failed: 0 } });

    t.clock.advance(10 * 60 * 1000);
    await runJobs();
    expect(await bulkEmail(id)).toMatchObject({ status: "done", counts: { total: 3, sent: 3 } });
    expect(people.map((p) => mailsTo(p.email).length)).toEqual([1, 1, 1]);
  });
});

describe("segments", () => {
  test("take the customers of a type, a country, a currency held and a sign-up period; a partner's customers", async () => {
    const day = "2022-02-02";
    const [personGb] = await insertCustomers(t.db, 1, { prefix: "seg-gb", createdAt: at(day), country: "GB" });
    const [firmDe] = await insertCustomers(t.db, 1, {
      prefix: "seg-de",
      createdAt: at(day),
      type: "Business",
      country: "DE",
    });
    await insertCustomers(t.db, 1, { prefix: "seg-unconfirmed", createdAt: at(day), validated: false });
    const [later] = await insertCustomers(t.db, 1, { prefix: "seg-later", createdAt: at("2022-02-04") });
    // The German firm holds euros.
    const [account] = await t.db.insert(accounts).values({
      accountRef: "B00000777",
      type: "Business",
      name: "Firm",
      openedAt: at(day),
    }).returning({ id: accounts.id });
    await t.db.insert(accountMembers).values({
      accountId: account.id,
      userId: firmDe.id,
      role: "owner",
      createdAt: at(day),
    });
    await t.db.insert(ledgerAccounts).values({
      kind: "customer",
      accountId: account.id,
      currency: "EUR",
      purpose: "balance",
      balance: 1_000,
      createdAt: at(day),
    });

    const size = async (segment: Record<string, unknown>) => (await bulkEmail((await draft(segment)).id)).segment_size;
    expect(await size(onDay(day))).toBe(2); // not the one whose address is unconfirmed
    expect(await size({ ...onDay(day), type: "Business" })).toBe(1);
    expect(await size({ ...onDay(day), country: "de" })).toBe(1);
    expect(await size({ ...onDay(day), country: "FR" })).toBe(0);
    expect(await size({ ...onDay(day), currency: "EUR" })).toBe(1);
    expect(await size({ ...onDay(day), currency: "GBP" })).toBe(0);
    expect(await size({ signed_up_from: day, signed_up_to: "2022-02-04" })).toBe(3);
    expect(await size({ signed_up_from: "2022-02-03", signed_up_to: "2022-02-04" })).toBe(1);
    // A partner's customers (decision 051); a partner that does not exist is refused, not empty.
    const [partner] = await t.db.insert(partners).values({
      name: "Introducer Ltd",
      email: "introducer@partner.test",
      code: "INTRO1",
      shareBps: 1000,
      createdAt: at(day),
      createdBy: admin.id,
      updatedAt: at(day),
    }).returning({ id: partners.id });
    expect(await size({ ...onDay(day), partner_id: partner.id })).toBe(0);
    await t.db.update(users).set({ partnerId: partner.id }).where(eq(users.id, firmDe.id));
    expect(await size({ ...onDay(day), partner_id: partner.id })).toBe(1);
    const unknown = await admin.client.post("console/bulkemails", {
      subject: "News",
      body: "Hello",
      segment: { partner_id: partner.id + 100 },
    });
    expectStatus(unknown, 422);
    expect(unknown.json, JSON.stringify(unknown.json)).toMatchObject({
      fields: { "segment.partner_id": "There is no such partner." },
    });

    // Sent, the recipients are the segment's customers, fixed at the send.
    const { id } = await draft({ ...onDay(day), type: "Personal" });
    expectStatus(await admin.client.post(`console/bulkemails/${id}/send`, {}), 202);
    const recipients = await t.db.select({ userId: bulkEmailRecipients.userId }).from(bulkEmailRecipients)
      .where(eq(bulkEmailRecipients.bulkEmailId, id));
    expect(recipients.map((r) => r.userId)).toEqual([personGb.id]);
    expect(later.id).toBeGreaterThan(0);

    const refused = await admin.client.post("console/bulkemails", {
      subject: "Hi",
      body: "Hello",
      segment: { type: "Other", country: "Germany", signed_up_from: "2022-13-01" },
    });
    expectStatus(refused, 422);
    expect(Object.keys(refused.json.fields).sort()).toEqual([
      "segment.country",
      "segment.signed_up_from",
      "segment.type",
    ]);
    // A country or a currency that does not exist is refused, naming the field, not an empty segment.
    for (
      const [segment, field, words] of [
        [{ country: "XX" }, "segment.country", "XX is not a country"],
        [{ currency: "ABC" }, "segment.currency", "ABC is not a currency"],
      ] as const
    ) {
      const wrong = await admin.client.post("console/bulkemails", { subject: "Hi", body: "Hello", segment });
      expectStatus(wrong, 422);
      expect(Object.keys(wrong.json.fields)).toEqual([field]);
      expect(wrong.json.fields[field]).toContain(words);
    }
    // A filter misspelled is refused, naming it: dropped, it left the segment every customer.
    const drafts = await t.db.select({ n: count() }).from(bulkEmails);
    const misspelt = await admin.client.post("console/bulkemails", {
      subject: "Hi",
      body: "Hello",
      segment: { contry: "GB" },
    });
    expectStatus(misspelt, 422);
    expect(misspelt.json.fields).toEqual({
      "segment.contry": "segment has no filter contry: the filters are type, country, currency, signed_up_from, " +
        "signed_up_to and partner_id.",
    });
    expect(await t.db.select({ n: count() }).from(bulkEmails)).toEqual(drafts);
    // Nobody in the segment: nothing to send.
    const empty = await draft({ ...onDay(day), country: "FR" });
    expectStatus(await admin.client.post(`console/bulkemails/${empty.id}/send`, {}), 409);
  });
});

describe("unsubscribing", () => {
  test("one click (RFC 8058): the mail says it may be posted to, and a POST to the link unsubscribes", async () => {
    const day = "2023-04-07";
    const [dee] = await insertCustomers(t.db, 1, { prefix: "oneclick", createdAt: at(day) });
    const sent = await draft(onDay(day));
    expectStatus(await admin.client.post(`console/bulkemails/${sent.id}/send`, {}), 202);
    await runJobs();
    const [mail] = mailsTo(dee.email);
    expect(readable(mail)).toContain("List-Unsubscribe-Post: List-Unsubscribe=One-Click");
    const link = new URL(unsubscribeLinkOf(mail));
    // A mail provider's server posts to the link itself, with no cookie and no origin.
    const visitor = new TestClient(t);
    const post = () =>
      visitor.request("POST", `${link.pathname}${link.search}`, "List-Unsubscribe=One-Click", {
        "content-type": "application/x-www-form-urlencoded",
      });
    const res = await post();
    expect(res.status).toBe(200);
    const [consent] = await t.db.select().from(marketingConsents).where(eq(marketingConsents.userId, dee.id));
    expect(consent.bulkEmailId).toBe(sent.id);
    expect((await post()).status).toBe(200);
    const forged = await visitor.request("POST", "/unsubscribe?token=made-up", "List-Unsubscribe=One-Click", {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(forged.status).toBe(400);
    // The link opened in a browser is still the page with its button.
    const page = await visitor.request("GET", `${link.pathname}${link.search}`);
    expect(page.text).toContain("Unsubscribe from Portal");
  });

  test("works from the link without signing in, is honoured by later bulk emails, and not by the portal's own", async () => {
    const day = "2023-03-03";
    const [ada, bob, cy] = await insertCustomers(t.db, 3, { prefix: "unsub", createdAt: at(day) });
    const first = await draft(onDay(day));
    expectStatus(await admin.client.post(`console/bulkemails/${first.id}/send`, {}), 202);
    await runJobs();
    expect(mailsTo(ada.email)).toHaveLength(1);
    const link = new URL(unsubscribeLinkOf(mailsTo(ada.email)[0]));

    // The link's page asks to confirm; the link alone changes nothing.
    const visitor = new TestClient(t);
    const page = await visitor.request("GET", `${link.pathname}${link.search}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Unsubscribe from Portal");
    expect(await t.db.select().from(marketingConsents).where(eq(marketingConsents.userId, ada.id))).toEqual([]);
    const token = link.searchParams.get("token")!;
    const confirmed = await visitor.post("unsubscribe", { token });
    expectStatus(confirmed, 200);
    expect(confirmed.json.body.email).toBe(ada.email);
    expectStatus(await visitor.post("unsubscribe", { token }), 200);
    const [consent] = await t.db.select().from(marketingConsents).where(eq(marketingConsents.userId, ada.id));
    expect(consent.bulkEmailId).toBe(first.id);
    const audited = await t.db.select().from(auditLog)
      .where(and(eq(auditLog.subjectId, ada.id), eq(auditLog.action, "marketing.unsubscribe")));
    expect(audited).toHaveLength(1);
    // A token altered or made up is refused.
    const forged = await visitor.post("unsubscribe", { token: `${token.slice(0, -4)}AAAA` });
    expectStatus(forged, 422);
    expect(Object.keys(forged.json.fields)).toEqual(["token"]);

    // The next bulk email leaves her out.
    const second = await draft(onDay(day));
    expect((await bulkEmail(second.id)).segment_size).toBe(2);
    // Bob unsubscribes after it was sent and before his turn came: he is skipped.
    expectStatus(await admin.client.post(`console/bulkemails/${second.id}/send`, {}), 202);
    const bobsToken = new URL(unsubscribeLinkOf(mailsTo(bob.email)[0])).searchParams.get("token")!;
    expectStatus(await visitor.post("unsubscribe", { token: bobsToken }), 200);
    await runJobs();
    expect(mailsTo(ada.email)).toHaveLength(1);
    expect(mailsTo(bob.email)).toHaveLength(1);
    expect(mailsTo(cy.email)).toHaveLength(2);
    expect(await bulkEmail(second.id)).toMatchObject({
      status: "done",
      counts: { total: 2, sent: 1, unsubscribed: 1 },
    });

    // The portal's own emails still reach her: a forgotten password's link.
    expectStatus(await visitor.post("auth/forgot", { username: ada.email }), 200);
    const [reset] = await t.db.select().from(emails).where(
      and(eq(emails.to, ada.email), eq(emails.template, "password-reset")),
    );
    expect(reset).toBeDefined();
  });
});

describe("in the console's emails (decision 061)", () => {
  test("each customer's mail is found by address and subject, reads as it was sent, and is not sent again from there", async () => {
    const day = "2023-04-04";
    const [ada, bob] = await insertCustomers(t.db, 2, { prefix: "console-mail", createdAt: at(day) });
    const { id } = await draft(onDay(day), {
      subject: "Autumn rates for {{first_name}}",
      body: "Dear {{name}},\n\nOur autumn rates are in.",
    });
    expectStatus(await admin.client.post(`console/bulkemails/${id}/send`, {}), 202);
    await runJobs();
    const received = mailsTo(ada.email);
    expect(received).toHaveLength(1);

    // An operator asked "did Ada get our newsletter?" searches her address.
    const byAddress = await admin.client.get(`console/emails?q=${encodeURIComponent(ada.email)}`);
    expectStatus(byAddress, 200);
    expect(byAddress.json.body.items).toEqual([expect.objectContaining({
      to: ada.email,
      subject: "Autumn rates for Ada1",
      status: "sent",
      user_id: ada.id,
      bulk_email_id: id,
    })]);
    const mail = byAddress.json.body.items[0];
    // By its subject: both customers' mails, each with the subject they received.
    const bySubject = await admin.client.get(`console/emails?q=${encodeURIComponent("Autumn rates")}`);
    expect(bySubject.json.body.items.map((e: { to: string; subject: string }) => [e.to, e.subject]).sort()).toEqual([
      [ada.email, "Autumn rates for Ada1"],
      [bob.email, "Autumn rates for Ada2"],
    ]);

    // She changes her name afterwards: the console still shows what she was sent.
    await t.db.update(profiles).set({ data: { first: "Augusta", last: "King", address: { country: "GB" } } })
      .where(eq(profiles.userId, ada.id));
    const detail = await admin.client.get(`console/emails/${mail.id}`);
    expectStatus(detail, 200);
    expect(detail.json.body).toMatchObject({ subject: "Autumn rates for Ada1", status: "sent", bulk_email_id: id });
    expect(detail.json.body.html).toContain("Dear Ada1 Lovelace,");
    expect(detail.json.body.text).toContain("Dear Ada1 Lovelace,");
    expect(detail.json.body.html).not.toContain("Augusta");
    // Not her working unsubscribe link (whoever opened it would unsubscribe her): an inert
    // placeholder, in the HTML and the text, and the page says so.
    const token = new URL(unsubscribeLinkOf(received[0])).searchParams.get("token")!;
    for (const part of [detail.json.body.html, detail.json.body.text]) {
      expect(part).not.toContain(encodeURIComponent(token));
      expect(part).not.toContain("/unsubscribe?token=");
    }
    expect(detail.json.body.text).toContain(UNSUBSCRIBE_NOT_SHOWN);
    expect(detail.json.body.html).toContain(
      'href="#" title="[unsubscribe link not shown: only the customer&#x27;s copy has it]"',
    );
    const frame = await admin.client.request("GET", `/console/emails/${mail.id}/html`);
    expect(frame.text).toContain("Dear Ada1 Lovelace,");
    expect(frame.text).not.toContain("/unsubscribe?token=");
    // Its page links to the bulk email, and offers no "Send again".
    const page = await admin.client.request("GET", `/console/emails/${mail.id}`);
    expect(page.text).toContain(`href="/console/bulkemails/${id}"`);
    expect(page.text).not.toContain("Send again");
    expect(page.text).toContain("Its unsubscribe link is shown as a placeholder that goes");
    const list = await admin.client.request("GET", `/console/emails?q=${encodeURIComponent(ada.email)}`);
    expect(list.text).toContain(`href="/console/bulkemails/${id}"`);

    // Sending one customer's copy again is refused, naming the bulk email; nobody is mailed.
    const again = await admin.client.post(`console/emails/${mail.id}/resend`);
    expectStatus(again, 409);
    expect(again.json.error).toContain(`/console/bulkemails/${id}`);
    expect(mailsTo(ada.email)).toHaveLength(1);
    expect(await t.db.select().from(emails).where(eq(emails.to, ada.email))).toHaveLength(1);

    // Nobody but an administrator sees it.
    const customer = await registerCustomer(t);
    expectStatus(await customer.client.get(`console/emails/${mail.id}`), 404);
    expectStatus(await customer.client.get(`console/emails?q=${encodeURIComponent(ada.email)}`), 404);
  });
});
