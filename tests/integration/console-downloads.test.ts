import { beforeAll, describe, expect, test, vi } from "vitest";
import { payoutBatches } from "../../db/schema-payments.ts";
import { DATES_REVERSED } from "../../lib/periods.ts";
import { type Admin, type ClientResponse, expectStatus, TestClient } from "../helpers/client.ts";
import { type MoneyApp, moneyApp } from "../helpers/money.ts";

/**
 * The console's downloads (the profit report's CSV, a SEPA file) are followed, not saved, as the
 * customer's are (decision 075): their links carry no `download` attribute, and a refusal to an
 * administrator following one brings its page back with the reason as the page's notification,
 * where the `download` attribute saved the JSON refusal as "profit.csv" or the pain.001 file. A
 * script's fetch still gets the JSON refusal; to anyone but an administrator the call still answers
 * as an address that does not exist (decision 004).
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;
let batchId: number;
let fileName: string;

/** What a browser sends when a person follows a link, and when a script fetches. */
const FOLLOWED = { "Sec-Fetch-Mode": "navigate", Accept: "text/html,application/xhtml+xml,*/*;q=0.8" };
const FETCHED = { "Sec-Fetch-Mode": "cors", Accept: "*/*" };
const flashOf = (res: ClientResponse) => res.setCookies.find((cookie) => cookie.name === "flash")?.value ?? "";
const today = () => new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  // A file made earlier, as the desk lists it (how files are made is payouts-batches.test.ts).
  const messageId = `SEPA-${crypto.randomUUID().slice(0, 8)}`;
  const [batch] = await t.db.insert(payoutBatches).values({
    scheme: "sepa",
    messageId,
    currency: "EUR",
    paymentCount: 1,
    totalMinor: 12000,
    file: '<?xml version="1.0" encoding="UTF-8"?><Document/>',
    createdBy: admin.id,
    createdAt: new Date(),
  }).returning();
  batchId = batch.id;
  fileName = `${messageId}.xml`;
});

/** The `<a>` tags of a page whose address contains `href`. */
const linksTo = (html: string, href: string) =>
  [...html.matchAll(/<a\b[^>]*>/g)].map((m) => m[0]).filter((tag) => tag.includes(href));

describe("the profit report's CSV", () => {
  test("the page links to it without a `download` attribute", async () => {
    const page = await admin.client.get(`/console/profitReports?from=${today()}&to=${today()}&group=day`);
    expect(page.status).toBe(200);
    const links = linksTo(page.text, "/api/console/profit.csv");
    expect(links.length).toBe(1);
    expect(links[0]).not.toMatch(/\sdownload[\s=>]/);
  });

  test("followed with a period the report refuses, it brings the report's page back saying why", async () => {
    const query = "from=2026-11-20&to=2026-11-10&group=day";
    const followed = await admin.client.get(`console/profit.csv?${query}`, FOLLOWED);
    expect(followed.status).toBe(303);
    expect(followed.headers.get("location")).toBe(`/console/profitReports?${query}`);
    expect(followed.headers.get("content-disposition")).toBeNull();
    expect(flashOf(followed)).toContain(DATES_REVERSED);
    // The page it comes back to shows the notification.
    const page = await admin.client.get(followed.headers.get("location")!, FOLLOWED);
    expect(page.status).toBe(200);
    expect(page.text).toContain(DATES_REVERSED);
    // A script's fetch gets the refusal naming the field.
    const fetched = await admin.client.get(`console/profit.csv?${query}`, FETCHED);
    expectStatus(fetched, 422);
    expect(fetched.json.fields).toEqual({ to: DATES_REVERSED });
  });

  test("followed with a good period, it is the CSV as an attachment", async () => {
    const followed = await admin.client.get(`console/profit.csv?from=${today()}&to=${today()}&group=day`, FOLLOWED);
    expect(followed.status).toBe(200);
    expect(followed.headers.get("content-disposition")).toBe(
      `attachment; filename="profit-${today()}-${today()}-day.csv"`,
    );
  });
});

describe("a SEPA file", () => {
  test("the local payouts desk links to it without a `download` attribute", async () => {
    const page = await admin.client.get("/console/local");
    expect(page.status).toBe(200);
    const links = linksTo(page.text, `/api/console/payouts/batches/${batchId}/file`);
    expect(links.length).toBe(1);
    expect(links[0]).not.toMatch(/\sdownload[\s=>]/);
    const file = await admin.client.get(`console/payouts/batches/${batchId}/file`, FOLLOWED);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-disposition")).toBe(`attachment; filename="${fileName}"`);
  });

  test("followed to a file there is not, it brings the desk back saying so", async () => {
    const followed = await admin.client.get("console/payouts/batches/999999/file", FOLLOWED);
    expect(followed.status).toBe(303);
    expect(followed.headers.get("location")).toBe("/console/local");
    expect(followed.headers.get("content-disposition")).toBeNull();
    expect(flashOf(followed)).not.toBe("");
    const fetched = await admin.client.get("console/payouts/batches/999999/file", FETCHED);
    expectStatus(fetched, 404);
  });
});

describe("followed by someone who is not an administrator (signed out, demoted)", () => {
  /** The answer with the address asked for and the request's id taken out. */
  const comparable = (res: ClientResponse, path: string) => ({
    status: res.status,
    type: res.headers.get("content-type"),
    location: res.headers.get("location"),
    body: res.text.replaceAll(path, "<path>").replaceAll(res.headers.get("x-request-id") ?? "-", "<id>"),
  });

  test("each download answers as an address that does not exist: no page of the console named", async () => {
    const visitor = new TestClient(t);
    const unknown = "/api/console/no-such-call";
    const none = comparable(await visitor.get(unknown, FOLLOWED), unknown);
    expect(none.status).toBe(404);
    for (const path of ["/api/console/profit.csv", `/api/console/payouts/batches/${batchId}/file`]) {
      const followed = await visitor.get(path, FOLLOWED);
      expect(comparable(followed, path), path).toEqual(none);
      expect(flashOf(followed), path).toBe("");
    }
  });
});
