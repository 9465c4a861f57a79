import { beforeAll, describe, expect, test, vi } from "vitest";
import {
  type Admin,
  businessProfile,
  completeOnboarding,
  createAdmin,
  type Customer,
  expectStatus,
  personalProfile,
  registerCustomer,
  signinApp,
} from "../helpers/client.ts";

/**
 * Searching the console's customers (issue 14, finding 8): by name (a person's first and last
 * name, a business's name), email and account reference; never through the raw profile text, where
 * "true" or "London" matched every Personal customer. The list is paginated and says how many
 * matched, where it used to stop at 200 rows without saying so.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

type App = Awaited<ReturnType<typeof signinApp>>;
let t: App;
let admin: Admin;
let grace: Customer;
let graceRef: string;
let acme: Customer;

beforeAll(async () => {
  t = await signinApp();
  admin = await createAdmin(t);
  grace = await registerCustomer(t, { type: "Personal" });
  await completeOnboarding(grace, { profile: personalProfile({ first: "Grace", last: "Hopperton" }) });
  graceRef = (await grace.client.get("account/whoami")).json.body.account_ref;
  acme = await registerCustomer(t, { type: "Business" });
  await completeOnboarding(acme, { profile: businessProfile({ name: "Zebulon Widgets Ltd" }) });
  for (let i = 0; i < 3; i++) {
    const person = await registerCustomer(t, { type: "Personal" });
    await completeOnboarding(person, { profile: personalProfile({ first: `Pager${i}`, last: "Quillfeather" }) });
  }
});

async function search(query: string) {
  const res = await admin.client.get(`console/users?${query}`);
  expectStatus(res, 200);
  return res.json.body as {
    items: { id: number; name: string; account_ref: string | null }[];
    page: number;
    per_page: number;
    total: number;
  };
}

const ids = (found: { items: { id: number }[] }) => found.items.map((c) => c.id);

describe("searching customers", () => {
  test("by full name finds the person", async () => {
    expect(ids(await search("q=Grace%20Hopperton"))).toEqual([grace.id]);
    expect(ids(await search("q=hopperton"))).toEqual([grace.id]);
  });

  test("by the name with the words in another order, as a bank's statement writes it", async () => {
    expect(ids(await search("q=HOPPERTON%20GRACE"))).toEqual([grace.id]);
    expect(ids(await search("q=Widgets%20Zebulon"))).toEqual([acme.id]);
    // Every word must be there: another first name with the same surname is not her.
    expect((await search("q=Hopperton%20Ada")).total).toBe(0);
  });

  test("by a business's name, by email and by account reference", async () => {
    expect(ids(await search("q=zebulon%20widgets"))).toEqual([acme.id]);
    expect(ids(await search(`q=${encodeURIComponent(grace.email.toUpperCase())}`))).toEqual([grace.id]);
    expect(ids(await search(`q=${graceRef}`))).toEqual([grace.id]);
    expect(ids(await search(`q=${graceRef.toLowerCase()}`))).toEqual([grace.id]);
  });

  test("never through the stored profile: 'true', 'London' and a date of birth match nobody", async () => {
    for (const q of ["true", "London", "1990-05-17", "Salary", '"first"']) {
      expect((await search(`q=${encodeURIComponent(q)}`)).total, q).toBe(0);
    }
  });
});

describe("the list is paginated and says how many matched", () => {
  test("page and per_page, with the total of matches", async () => {
    const first = await search("q=quillfeather&per_page=2");
    expect(first).toMatchObject({ page: 1, per_page: 2, total: 3 });
    expect(first.items).toHaveLength(2);
    const second = await search("q=quillfeather&per_page=2&page=2");
    expect(second).toMatchObject({ page: 2, per_page: 2, total: 3 });
    expect(second.items).toHaveLength(1);
    expect(new Set([...ids(first), ...ids(second)]).size).toBe(3);
  });

  test("without a search: every customer, newest first, the total counting them all", async () => {
    const all = await search("");
    expect(all.total).toBe(5);
    expect(all.items[0].name).toBe("Pager2 Quillfeather");
  });

  test("a page or per_page that is not a positive whole number (or more than 100 a page) is refused", async () => {
    for (const query of ["page=0", "page=x", "per_page=101", "per_page=0"]) {
      const res = await admin.client.get(`console/users?${query}`);
      expectStatus(res, 422);
    }
  });
});

describe("the sign-up days", () => {
  test("a period whose to is before its from is refused as profit and referrals refuse it, naming to", async () => {
    const res = await admin.client.get("console/users?from=2026-11-28&to=2020-01-31");
    expectStatus(res, 422);
    expect(res.json.fields).toEqual({ to: "The date to is before the date from." });
    expectStatus(await admin.client.get("console/users?from=2020-01-31&to=2026-11-28"), 200);
    expectStatus(await admin.client.get("console/users?from=2026-11-28&to=2026-11-28"), 200);
  });
});
