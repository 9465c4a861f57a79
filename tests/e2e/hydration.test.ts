import { describe, expect } from "vitest";
import { PAGES } from "../../routes/pages.tsx";
import { test } from "../helpers/e2e-fixtures.ts";
import {
  createAdminOverHttp,
  fundedCustomerOverHttp,
  HttpSession,
  registerOverHttp,
  signInOverHttp,
} from "../helpers/http-customer.ts";

/**
 * Every island hydrates on the browser's runtime (preact/compat, decision 033) with nothing said in
 * the console: every page of the portal, as each person who sees it (a visitor, a customer, an
 * administrator, the administrator on behalf of the customer, two people registering), is loaded
 * in Chromium, and a script error, a console error or a warning (a hydration warning, an island
 * that could not load) fails the test.
 */

const people: { who: string; cookie: string }[] = [{ who: "a visitor", cookie: "" }];
let customerId = 0;

test.beforeAll(async ({ server, db }) => {
  const admin = await createAdminOverHttp(server.url, db);
  const customer = await fundedCustomerOverHttp(server.url, db, admin, { funds: { GBP: "1000.00" } });
  customerId = customer.id;
  const person = await registerOverHttp(server.url, db, { type: "Personal" });
  const business = await registerOverHttp(server.url, db, { type: "Business" });
  const onBehalf = new HttpSession(server.url);
  await signInOverHttp(onBehalf, db, admin.email, admin.password);
  expect((await onBehalf.post("account/onbehalf", { on_behalf_of: customer.id })).status).toBe(200);
  people.push(
    { who: "a customer", cookie: customer.session.cookieHeader() },
    { who: "an administrator", cookie: admin.session.cookieHeader() },
    { who: "an administrator on behalf of the customer", cookie: onBehalf.cookieHeader() },
    { who: "a Personal registrant", cookie: person.session.cookieHeader() },
    { who: "a Business registrant", cookie: business.session.cookieHeader() },
  );
}, 120_000);

describe("hydration on the browser's runtime", () => {
  test(
    "every page hydrates every island, as each person sees it, without a warning or an error",
    async ({ server, browser }) => {
      const paths = [...new Set(PAGES.map((page) => page.path.replace(/:id\b.*$/, String(customerId))))];
      const problems: string[] = [];
      let hydratedPages = 0;
      for (const { who, cookie } of people) {
        const context = await browser.newContext();
        await context.addCookies(
          cookie.split("; ").filter(Boolean).map((pair) => {
            const at = pair.indexOf("=");
            return { name: pair.slice(0, at), value: pair.slice(at + 1), url: server.url };
          }),
        );
        const page = await context.newPage();
        let seen: string[] = [];
        page.on("pageerror", (error) => seen.push(error.message));
        page.on("console", (message) => {
          if (message.type() === "error" || message.type() === "warning") {
            seen.push(`console.${message.type()}: ${message.text()}`);
          }
        });
        for (const path of paths) {
          // Only this person's own pages with islands: one that sends them elsewhere, or is not
          // theirs, is checked as someone else's.
          const res = await fetch(`${server.url}${path}`, { headers: { cookie }, redirect: "manual" });
          const html = await res.text();
          if (res.status !== 200 || !html.includes('id="__islands"')) continue;
          seen = [];
          await page.goto(`${server.url}${path}`);
          await page.waitForSelector("html[data-hydrated]", { state: "attached", timeout: 15_000 });
          problems.push(...seen.map((problem) => `${path} as ${who}: ${problem}`));
          hydratedPages++;
        }
        await context.close();
      }
      expect(problems).toEqual([]);
      // The walk reached the public pages, the account, the console and onboarding.
      expect(hydratedPages).toBeGreaterThan(40);
    },
    600_000,
  );
});
