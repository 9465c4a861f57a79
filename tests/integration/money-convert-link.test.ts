import { beforeAll, describe, expect, test, vi } from "vitest";
import { type Admin, signIn, TestClient } from "../helpers/client.ts";
import { fundedCustomer, type MoneyApp, moneyApp, type OpenCustomer } from "../helpers/money.ts";

/**
 * The calculator's "Convert now" carries the pair, the amount and the fixed side to the convert
 * page, which starts from them (what is not valid is ignored); a visitor not signed in signs in
 * and comes back to the same.
 */

vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

let t: MoneyApp;
let admin: Admin;
let funded: OpenCustomer;
beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  funded = await fundedCustomer(t, admin, "GBP", "300.00");
});

const LINK = "/account/convert?sell=GBP&buy=JPY&fixed=sell&amount=150.00";

/** What the convert form was told to start from (its island's props). */
function startOf(html: string): unknown {
  const match = /"name":"ConvertForm","props":(\{.*?\}),"src"/.exec(html);
  expect(match, "the convert form is on the page").not.toBeNull();
  return JSON.parse(match![1]).start;
}

describe("the convert page opened from the calculator", () => {
  test("starts from the pair, the amount and the fixed side", async () => {
    const page = await funded.client.get(LINK);
    expect(page.status).toBe(200);
    expect(startOf(page.text)).toEqual({ sell: "GBP", buy: "JPY", fixed: "sell", amount: "150.00" });
    expect(page.text).toContain('value="150.00"');
    const fixedBuy = await funded.client.get("/account/convert?sell=GBP&buy=eur&fixed=buy&amount=90");
    expect(startOf(fixedBuy.text)).toEqual({ sell: "GBP", buy: "EUR", fixed: "buy", amount: "90" });
  });

  test.each([
    ["an unknown currency", "sell=XYZ&buy=EUR&fixed=sell&amount=10", { buy: "EUR" }],
    ["the same currency twice", "sell=GBP&buy=GBP&fixed=sell&amount=10", { sell: "GBP", fixed: "sell", amount: "10" }],
    ["an amount that is not one", "sell=GBP&buy=EUR&fixed=sell&amount=-5", { sell: "GBP", buy: "EUR" }],
    ["more decimals than the currency has", "sell=GBP&buy=JPY&fixed=buy&amount=1.5", { sell: "GBP", buy: "JPY" }],
    ["a side that is neither", "sell=GBP&buy=EUR&fixed=both&amount=10", { sell: "GBP", buy: "EUR" }],
    ["an amount of zero", "sell=GBP&buy=EUR&fixed=sell&amount=0", { sell: "GBP", buy: "EUR" }],
  ])("ignores %s, and still opens", async (_what, query, start) => {
    const page = await funded.client.get(`/account/convert?${query}`);
    expect(page.status).toBe(200);
    expect(startOf(page.text)).toEqual(start);
  });

  test("a visitor signs in and comes back to the same, once", async () => {
    const visitor = new TestClient(t);
    const sent = await visitor.get(LINK);
    expect(sent.status).toBe(302);
    expect(sent.headers.get("location")).toBe("/#sign-in");

    await signIn(visitor, funded.email, funded.password);
    const back = await visitor.get("/auth");
    expect(back.headers.get("location")).toBe(LINK);
    const page = await visitor.get(LINK);
    expect(startOf(page.text)).toEqual({ sell: "GBP", buy: "JPY", fixed: "sell", amount: "150.00" });
    // Used once: the next sign-in goes where it always did.
    expect((await visitor.get("/auth")).headers.get("location")).toBe("/account");
  });

  test("an administrator signing in at that browser uses it up: the next customer there is not sent to it", async () => {
    const browser = new TestClient(t);
    expect((await browser.get(LINK)).headers.get("location")).toBe("/#sign-in");
    // Someone else, an administrator, signs in at this browser instead...
    await signIn(browser, admin.email, admin.password);
    expect((await browser.get("/auth")).headers.get("location")).not.toBe(LINK);
    // ...and the next customer to sign in there within the hour goes where they always do.
    await signIn(browser, funded.email, funded.password);
    expect((await browser.get("/auth")).headers.get("location")).toBe("/account");
  });

  test("a remembered page that is not one of ours is not followed", async () => {
    const visitor = new TestClient(t);
    await signIn(visitor, funded.email, funded.password);
    visitor.setCookie("after_sign_in", "//elsewhere.example/account/convert");
    expect((await visitor.get("/auth")).headers.get("location")).toBe("/account");
    visitor.setCookie("after_sign_in", "/console/users");
    expect((await visitor.get("/auth")).headers.get("location")).toBe("/account");
    // A browser reads "/\\host" as "//host": another site, whose path looks like ours (the cookie
    // holds it encoded, as the server's own cookies are).
    visitor.setCookie("after_sign_in", "/%5Celsewhere.example/account/convert");
    expect((await visitor.get("/auth")).headers.get("location")).toBe("/account");
  });
});
