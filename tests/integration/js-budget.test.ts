import { beforeAll, describe, expect, test } from "vitest";
import { MAX_TRANSFERRED_JS_BYTES, scriptsOfPage, type Sent } from "../../bench/lib/page-scripts.ts";
import { PAGES } from "../../routes/pages.tsx";
import { businessOwner } from "../helpers/account-users.ts";
import { registerCustomer, signIn, TestClient } from "../helpers/client.ts";
import { fundedCustomer, type MoneyApp, moneyApp } from "../helpers/money.ts";

/**
 * The JavaScript budget (decision 034): every page, as each person who sees it loads it, makes the
 * browser download at most 35 KB of JavaScript as transferred (brotli, which every browser that
 * runs the islands accepts). The bench prints the same figures over HTTP (bench/js-weight.ts).
 */

const BROWSER = "gzip, deflate, br, zstd";

describe("the JavaScript a page loads, as transferred", () => {
  let t: MoneyApp;
  const people: { who: string; client: TestClient | null }[] = [];
  let customerId = 0;

  beforeAll(async () => {
    const app = await moneyApp();
    t = app.t;
    const customer = await fundedCustomer(t, app.admin, "GBP", "500.00");
    customerId = customer.id;
    const onBehalf = new TestClient(t);
    await signIn(onBehalf, app.admin.email, app.admin.password);
    expect((await onBehalf.post("account/onbehalf", { on_behalf_of: customer.id })).status).toBe(200);
    people.push(
      { who: "a visitor", client: null },
      { who: "a customer", client: customer.client },
      { who: "an administrator", client: app.admin.client },
      { who: "an administrator on behalf of the customer", client: onBehalf },
      { who: "a Personal registrant", client: (await registerCustomer(t, { type: "Personal" })).client },
      { who: "a Business registrant", client: (await registerCustomer(t, { type: "Business" })).client },
      // A business account's owner: /account/users adds the approval rule's form to the users'.
      { who: "a business owner", client: (await businessOwner(t, app.admin)).client },
    );
  }, 60_000);

  test(`stays within ${MAX_TRANSFERRED_JS_BYTES / 1000} KB on every page, for everyone who sees it`, async () => {
    const sizes = new Map<string, Sent>();
    const load = async (url: string): Promise<Sent> => {
      let sent = sizes.get(url);
      if (!sent) {
        const res = await t.app.request(new URL(url).pathname, { headers: { "accept-encoding": BROWSER } });
        sent = {
          status: res.status,
          body: new Uint8Array(await res.arrayBuffer()),
          encoding: res.headers.get("content-encoding"),
        };
        sizes.set(url, sent);
      }
      return sent;
    };
    const paths = [...new Set(PAGES.map((page) => page.path.replace(/:id\b.*$/, String(customerId))))];
    const weighed: string[] = [];
    const over: string[] = [];
    for (const { who, client } of people) {
      for (const path of paths) {
        const res = client ? await client.get(path) : await t.app.request(path);
        const html = client ? (res as { text: string }).text : await (res as Response).text();
        if (res.status !== 200 || !html.includes('id="__islands"')) continue;
        const scripts = await scriptsOfPage(new URL(path, "http://localhost"), html, load);
        // As the browser receives them: compressed (a file of a few bytes may go as it is).
        for (const file of scripts.files) if (file.bytes > 1024) expect(file.encoding, file.url).toBe("br");
        weighed.push(`${path} as ${who}: ${scripts.totalTransferredBytes}`);
        if (scripts.totalTransferredBytes > MAX_TRANSFERRED_JS_BYTES) {
          over.push(
            `${path} as ${who}: ${scripts.totalTransferredBytes} bytes in ${scripts.files.length} files (${
              scripts.files.map((f) => `${new URL(f.url).pathname} ${f.transferredBytes}`).join(", ")
            })`,
          );
        }
      }
    }
    expect(over).toEqual([]);
    // Every kind of page was weighed: public, onboarding, the account, the console, on behalf.
    for (const part of ["/calculator as a visitor", "/register-business as", "/account/convert as a customer"]) {
      expect(weighed.some((line) => line.startsWith(part)), part).toBe(true);
    }
    expect(weighed.some((line) => line.startsWith("/console/pricingplan as an administrator"))).toBe(true);
    expect(weighed.some((line) => line.startsWith("/account as an administrator on behalf"))).toBe(true);
    expect(weighed.some((line) => line.startsWith("/account/users as a business owner"))).toBe(true);
  }, 120_000);
});
