import { beforeAll, describe, expect, test, vi } from "vitest";
import { type Admin, anotherAdmin, expectStatus, TestClient } from "../helpers/client.ts";
import { type MoneyApp, moneyApp, type OpenCustomer, openCustomer } from "../helpers/money.ts";
import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { AuditChanges, changesOf } from "../../routes/pages/console/audit-changes.tsx";

/**
 * The console's audit screen (/console/audit) and the audit trails in words: staff find who did
 * what across the console by who, action, customer and days, page by page; the before and after
 * of each entry read as "field: old → new", never as JSON, there and on the customer's page.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;
let second: Admin;
let ada: OpenCustomer;
let bob: OpenCustomer;

const text = (html: string) =>
  html.slice(html.indexOf("<main"), html.indexOf("</main>")).replace(/<[^>]+>/g, " ").replace(/&gt;/g, ">")
    .replace(/\s+/g, " ");

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  second = await anotherAdmin(t);
  ada = await openCustomer(t);
  bob = await openCustomer(t);
  expectStatus(await admin.client.post(`console/users/${ada.id}/restrict`, { reason: "Source of funds" }), 200);
  expectStatus(await second.client.delete(`console/users/${ada.id}/restrict`, { reason: "Documents seen" }), 200);
  expectStatus(await second.client.post(`console/users/${bob.id}/restrict`, { reason: "Sanctions hit" }), 200);
});

describe("the audit screen", () => {
  test("lists every console action newest first, with who, what, for whom and the changes in words", async () => {
    const page = await admin.client.get("/console/audit");
    expectStatus(page, 200);
    const shown = text(page.text);
    expect(shown).not.toContain("Coming soon");
    expect(shown).toContain("Audit log");
    expect(shown).toContain("restricted: no → yes");
    expect(shown).toContain("reason: Sanctions hit");
    expect(shown).toContain("restricted: yes → no");
    expect(shown).toContain("reason: Documents seen");
    expect(shown.indexOf("Sanctions hit")).toBeLessThan(shown.indexOf("Documents seen"));
    expect(page.text).toContain(`href="/console/users/${bob.id}"`);
    expect(shown).not.toContain('{"restricted"');
  });

  test("filters by who, action, customer and days", async () => {
    const byWho = text((await admin.client.get(`/console/audit?who=${encodeURIComponent(second.email)}`)).text);
    expect(byWho).toContain("Documents seen");
    expect(byWho).toContain("Sanctions hit");
    expect(byWho).not.toContain("reason: Source of funds");
    const lifts = text((await admin.client.get("/console/audit?action=customer.lift")).text);
    expect(lifts).toContain("Documents seen");
    expect(lifts).not.toContain("Sanctions hit");
    const forAda = text((await admin.client.get(`/console/audit?customer=${ada.id}&action=customer.restrict`)).text);
    expect(forAda).toContain("Source of funds");
    expect(forAda).not.toContain("Sanctions hit");
    const today = new Date(t.clock.now()).toISOString().slice(0, 10);
    expect(text((await admin.client.get(`/console/audit?from=${today}&to=${today}`)).text)).toContain("Sanctions hit");
    const before = text((await admin.client.get("/console/audit?to=2000-01-01")).text);
    expect(before).toContain("No entry matches.");
  });

  test("as the form sends them, empty fields are no filter: 'Every action' and one action both work", async () => {
    const form = (fields: Record<string, string>) =>
      admin.client.get(
        `/console/audit?${new URLSearchParams({ who: "", action: "", customer: "", from: "", to: "", ...fields })}`,
      );
    const every = await form({});
    expect(text(every.text)).toContain("Sanctions hit");
    expect(text(every.text)).toContain("Documents seen");
    const lifts = text((await form({ action: "customer.lift" })).text);
    expect(lifts).toContain("Documents seen");
    expect(lifts).not.toContain("Sanctions hit");
    expect(lifts).not.toContain("whole number");
    // A wrong date is said once, however many rules it breaks.
    const wrong = text((await form({ from: "someday" })).text);
    expect(wrong.split("from is a date written YYYY-MM-DD.").length).toBe(2);
  });

  test("a wrong filter says what is wrong and shows no entries, never the unfiltered log", async () => {
    const page = await admin.client.get(`/console/audit?customer=${ada.id}&from=2026-13-45`);
    expectStatus(page, 200);
    expect(text(page.text)).toContain("from is a date written YYYY-MM-DD.");
    expect(text(page.text)).not.toContain("Sanctions hit"); // Bob's, not Ada's: the unfiltered log
    expect(page.text).not.toContain("data-audit-changes");
  });

  test("a period that ends before it starts is refused as every period filter refuses it", async () => {
    const page = await admin.client.get("/console/audit?from=2026-11-20&to=2026-11-10");
    expectStatus(page, 200);
    expect(text(page.text)).toContain("The date to is before the date from.");
    expect(page.text).not.toContain("data-audit-changes");
    expect(text(page.text)).not.toContain("No entry matches.");
  });

  test("pages through more entries than one page holds", async () => {
    // Ada has 2 entries already: 54 after these, more than the 50 of a page.
    const path = `console/users/${ada.id}/restrict`;
    for (let i = 0; i < 26; i++) {
      expectStatus(await admin.client.post(path, { reason: `Round ${i}` }), 200);
      expectStatus(await admin.client.delete(path, { reason: `Lifted ${i}` }), 200);
    }
    const first = await admin.client.get(`/console/audit?customer=${ada.id}`);
    expect(Number(/data-audit-total="(\d+)"/.exec(first.text)![1])).toBeGreaterThanOrEqual(54);
    expect(text(first.text)).toContain("Lifted 25");
    expect(text(first.text)).not.toContain("Source of funds");
    expect(first.text).toContain(`href="/console/audit?customer=${ada.id}&amp;page=2"`);
    const older = text((await admin.client.get(`/console/audit?customer=${ada.id}&page=2`)).text);
    expect(older).toContain("Source of funds");
    expect(older).not.toContain("Lifted 25");
  });

  test("an email in the Who column wraps only at its @ and dots, never mid-word", async () => {
    const page = await admin.client.get("/console/audit");
    const [name, domain] = admin.email.split("@");
    const dots = (s: string) => s.replaceAll(".", "<wbr/>.");
    expect(page.text).toContain(`${dots(name)}<wbr/>@${dots(domain)}`);
    expect(page.text).not.toMatch(/<td class="[^"]*break-all[^"]*">[^<]*@/);
  });

  test("an entry about an administrator names them, with no customer link", async () => {
    const invited = await admin.client.post("console/admins", { email: "new.admin@example.com", name: "Grace Hopper" });
    expect(invited.status).toBeLessThan(300);
    const page = await admin.client.get("/console/audit?action=admin.invite");
    const shown = text(page.text);
    expect(shown).toContain("(administrator)");
    expect(page.text).not.toMatch(new RegExp(`href="/console/users/${invited.json.body.id}"`));
  });

  test("is the console's: 'Page not found' to a customer and a visitor, and in the console menu", async () => {
    for (const client of [ada.client, new TestClient(t)]) expectStatus(await client.get("/console/audit"), 404);
    expect((await admin.client.get("/console/users")).text).toContain('href="/console/audit"');
  });
});

describe("changes in words", () => {
  test("only what differs, nested fields by their path, nothing as JSON", () => {
    expect(changesOf({ restricted: false }, { restricted: true, reason: "Sanctions hit" })).toEqual([
      { field: "restricted", before: "no", after: "yes" },
      { field: "reason", before: null, after: "Sanctions hit" },
    ]);
    expect(
      changesOf({ fees: { GBP: { regular: "1.00" } }, name: "A" }, { fees: { GBP: { regular: "1.50" } }, name: "A" }),
    )
      .toEqual([{ field: "fees › GBP", before: "regular 1.00", after: "regular 1.50" }]);
    expect(changesOf({ plan_id: 3 }, null)).toEqual([{ field: "plan id", before: "3", after: null }]);
  });

  test("says what the entry is about (the payment, the partner) even when it did not change, linked when it has a page", () => {
    // Two payments marked as arrived in a row: told apart by the payment each is about.
    expect(changesOf({ payment_id: 12, status: "submitted" }, { payment_id: 12, status: "completed" })).toEqual([
      { field: "payment", before: null, after: "#12" },
      { field: "status", before: "submitted", after: "completed" },
    ]);
    expect(changesOf({ payment_ids: [4, 5], status: "approved" }, { batch_id: 2, payment_ids: [4, 5] }))
      .toContainEqual({ field: "payments", before: null, after: "#4, #5" });
    const linked = renderToString(
      createElement(AuditChanges, { before: { partner_id: 7, name: "A" }, after: { partner_id: 7, name: "B" } }),
    );
    expect(linked).toContain('href="/console/partners/7"');
    expect(linked).toContain("name: A → B");
    // A payment has no console page of its own: named, not linked.
    expect(renderToString(createElement(AuditChanges, { before: { payment_id: 12 }, after: { payment_id: 12 } })))
      .not.toContain("href");
  });

  test("the customer's page shows its trail in words", async () => {
    const shown = text((await admin.client.get(`/console/users/${ada.id}`)).text);
    expect(shown).toContain("reason: Documents seen");
    expect(shown).not.toContain('{"restricted"');
  });
});
