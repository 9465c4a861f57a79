/**
 * Phone width (issue 15, item 6): at 360 px wide no page of the site scrolls sideways. The pages
 * are the rows of PAGES, so a page added later is visited too: a visitor's pages as a visitor, the
 * customer's as a signed-in customer with an open, funded account that converted once (so the
 * tables have rows), the console's as the administrator. The onboarding steps are seen by someone
 * at that step (a Personal and a Business customer who just confirmed their address, the Business
 * one again with its profile saved and then checked, someone signed in with the password only). A
 * path parameter takes the id of a real record; see SKIPPED for the one page left out and why. On the signed-in layout the
 * compact menu is opened too: its links (and their "Coming soon" labels) must fit as well. The
 * customer has a statement ready, and its list is checked again at 390 px: until when it is kept and
 * its download link are on screen, and axe finds nothing serious.
 * NO_SIDEWAYS_SCREENSHOTS=1 keeps a screenshot of each page in /tmp/no-sideways-*.png.
 */
import type { Page } from "playwright-core";
import { describe, expect, vi } from "vitest";
import { CONSOLE_GUARDS } from "../../lib/contracts/guards.ts";
import { type PageRoute, PAGES } from "../../routes/pages.tsx";
import { newPage, seriousAxeViolations } from "../helpers/browser.ts";
import { businessProfile } from "../helpers/client.ts";
import { type E2e, test } from "../helpers/e2e-fixtures.ts";
import {
  lastEmailId,
  openAccountThroughApi,
  type Requester,
  signInThroughPages,
  tokenOf,
  waitForEmail,
} from "../helpers/e2e-mail.ts";
import { ensureAdministrator, todayUtc } from "../helpers/e2e-money.ts";

// About fifty pages, each loaded and measured, on a shared machine.
vi.setConfig({ testTimeout: 300_000 });

const WIDTH = 360;
/** A common phone's width, at which the statements list is checked once more (its columns read). */
const PHONE = 390;
const ADMIN = { email: "admin.phone@portal.test", password: "phone-admin-password-1" };
const CUSTOMER = {
  email: "ada.phone@portal.test",
  password: "phone-customer-password-1",
  first: "Adelaide",
  last: "Featherstonehaugh-Montgomery",
};

/** Pages left out, and why. */
const SKIPPED: Record<string, string> = {
  "/account/pendingpayments/:id":
    "needs a payment waiting for a second person's approval (an account with two users); its list page is visited",
  "/no-account":
    "needs someone removed from every account they belonged to (tests/integration/no-account.test.ts); a heading and three lines of text in the default layout, whose other pages are visited",
};

type Who = "visitor" | "customer" | "admin";

/** Registers through the calls and opens the emailed link: the person is at the profile step. */
async function registered(
  { server, db }: Pick<E2e, "server" | "db">,
  request: Requester,
  email: string,
  type: "Personal" | "Business",
) {
  const mark = await lastEmailId(db);
  const res = await request.post(`${server.url}/api/auth/register`, {
    data: { email, password: "phone-onboarding-password-1", type },
  });
  expect(res.status(), await res.text()).toBeLessThan(300);
  const mail = await waitForEmail(db, email, { template: "email-validation", after: mark });
  const link = /https?:\/\/\S+/.exec(mail.text)![0];
  const validated = await request.post(`${server.url}/api/validation/validate`, { data: { token: tokenOf(link) } });
  expect(validated.status(), await validated.text()).toBeLessThan(300);
}

async function called(
  { server }: Pick<E2e, "server">,
  request: Requester,
  method: "get" | "post",
  path: string,
  data?: unknown,
) {
  const res = method === "get"
    ? await request.get(`${server.url}/api/${path}`)
    : await request.post(`${server.url}/api/${path}`, { data });
  expect(res.status(), `${path}: ${await res.text()}`).toBeLessThan(300);
}

function whoSees(page: PageRoute): Who {
  if (!page.guards?.length) return "visitor";
  return CONSOLE_GUARDS.every((g) => page.guards!.includes(g)) ? "admin" : "customer";
}

/** What is wider than the window: the page's width, and the outermost elements sticking out. */
async function overflow(page: Page): Promise<{ width: number; culprits: string[] }> {
  return await page.evaluate((limit) => {
    const out = (el: Element | null) => !!el && el.getBoundingClientRect().right > limit + 0.5;
    const culprits = [...document.querySelectorAll("body *")]
      .filter((el) => out(el) && !out(el.parentElement))
      .slice(0, 3)
      .map((el) =>
        `<${el.tagName.toLowerCase()} class="${(el.getAttribute("class") ?? "").slice(0, 80)}"> to ${
          Math.round(el.getBoundingClientRect().right)
        }px: ${(el.textContent ?? "").trim().slice(0, 40)}`
      );
    return { width: document.documentElement.scrollWidth, culprits };
  }, WIDTH);
}

async function measure(page: Page, url: string, name: string) {
  await page.goto(url);
  await page.waitForLoadState("networkidle");
  const widths = [{ state: "as loaded", ...await overflow(page) }];
  // The signed-in layout's compact menu, opened.
  if (await page.locator("details[data-menu=compact]").count()) {
    await page.locator("details[data-menu=compact] > summary").click();
    widths.push({ state: "menu open", ...await overflow(page) });
  }
  if (Deno.env.get("NO_SIDEWAYS_SCREENSHOTS")) {
    await page.screenshot({ path: `/tmp/no-sideways-${name.replace(/\W+/g, "_")}.png`, fullPage: true });
  }
  return widths.map((w) => ({ page: `${name} (${w.state})`, width: w.width, culprits: w.culprits }));
}

describe("at 360 px wide", () => {
  test("no page of the site scrolls sideways: visitors', customers' and the console's", async ({ server, db, browser }) => {
    // The customer: an open account, funded, with one conversion and one recipient.
    const customer = await newPage(browser);
    const opened = await openAccountThroughApi(customer.page.request, db, server.url, CUSTOMER);
    const admin = await newPage(browser);
    await ensureAdministrator(admin.page.request, server.url, ADMIN);
    await signInThroughPages(admin.page, db, server.url, ADMIN.email, ADMIN.password);
    const receipt = await admin.page.request.post(`${server.url}/api/console/receipts`, {
      data: {
        amount: "12345.67",
        currency: "GBP",
        payer_name: `${CUSTOMER.first} ${CUSTOMER.last}`,
        reference: opened.accountRef,
        received_at: todayUtc(),
      },
    });
    expect(receipt.status(), await receipt.text()).toBeLessThan(300);
    const quote = await customer.page.request.post(`${server.url}/api/account/conversions/quote`, {
      data: { sell_currency: "GBP", buy_currency: "EUR", amount: "1000.00", fixed: "sell" },
    });
    expect(quote.status(), await quote.text()).toBe(200);
    const converted = await customer.page.request.post(`${server.url}/api/account/conversions`, {
      data: { quote_id: (await quote.json()).body.id },
    });
    expect(converted.status(), await converted.text()).toBe(201);
    const recipient = await customer.page.request.post(`${server.url}/api/account/recipients`, {
      data: {
        name: "Bartholomew Featherstonehaugh-Cholmondeley Holdings International",
        type: "business",
        currency: "EUR",
        country: "DE",
        details: { iban: "DE89370400440532013000", bic: "COBADEFFXXX" },
      },
    });
    expect(recipient.status(), await recipient.text()).toBe(201);
    // A statement made and downloadable, so that the reports page has a row with every column.
    const statement = await customer.page.request.post(`${server.url}/api/account/statements`, {
      data: { currency: null, from: todayUtc(), to: todayUtc(), format: "csv" },
    });
    expect(statement.status(), await statement.text()).toBe(202);
    await expect.poll(async () => {
      const listed = await customer.page.request.get(`${server.url}/api/account/statements`);
      return (await listed.json()).body.items[0]?.state;
    }, { timeout: 30_000 }).toBe("ready");

    // A real record for each path parameter.
    const ids: Record<string, string> = { "/console/users/:id": String(opened.id) };
    // A migration dry run with a long address and a refusal, for its run's page.
    const migration = await admin.page.request.post(`${server.url}/api/console/migrations?dry_run=true`, {
      headers: { "content-type": "text/csv" },
      data: "legacy_id,email,type,first_name,last_name,country\n" +
        "LEGACY-000000000001,bartholomew.featherstonehaugh-cholmondeley@example-holdings.test,Personal,B,F,GB\n" +
        "LEGACY-000000000002,someone@example.test,Corporate,A,B,GB\n",
    });
    expect(migration.status(), await migration.text()).toBe(201);
    ids["/console/migration/:id"] = String((await migration.json()).body.id);
    // A bulk email with a long subject, for its page (a draft: its preview and its send).
    const bulk = await admin.page.request.post(`${server.url}/api/console/bulkemails`, {
      data: {
        subject: "Bartholomew, our Featherstonehaugh-Cholmondeley exchange rates have changed for {{first_name}}",
        body: "Hello {{name}},\n\nbartholomew.featherstonehaugh-cholmondeley@example-holdings.test",
        segment: {},
      },
    });
    expect(bulk.status(), await bulk.text()).toBe(201);
    ids["/console/bulkemails/:id"] = String((await bulk.json()).body.id);
    const visitor = await newPage(browser);
    const pages = { visitor: visitor.page, customer: customer.page, admin: admin.page };
    for (const p of Object.values(pages)) await p.setViewportSize({ width: WIDTH, height: 780 });

    // The onboarding steps, each seen by someone at that step (in the order of PAGES).
    const personal = await newPage(browser);
    await registered({ server, db }, personal.page.request, "new.personal.phone@portal.test", "Personal");
    const business = await newPage(browser);
    await registered({ server, db }, business.page.request, "new.business.phone@portal.test", "Business");
    const halfway = await newPage(browser);
    const onboarding: Record<string, () => Promise<Page>> = {
      "/register-personal": () => Promise.resolve(personal.page),
      "/register-business": () => Promise.resolve(business.page),
      "/identity": async () => {
        await called({ server }, business.page.request, "post", "account/profile", businessProfile());
        return business.page;
      },
      "/processing": async () => {
        await called({ server }, business.page.request, "post", "sumsub/sandbox", { answer: "GREEN" });
        await called({ server }, business.page.request, "get", "sumsub/confirm");
        return business.page;
      },
      // Signed in with the password; the emailed code not typed yet.
      "/second-factor": async () => {
        await halfway.page.goto(`${server.url}/`);
        const form = halfway.page.getByRole("form", { name: "Sign in" });
        await form.getByLabel("Email").fill(CUSTOMER.email);
        await form.getByLabel("Password").fill(CUSTOMER.password);
        await form.getByRole("button", { name: "Sign in" }).click();
        await halfway.page.waitForURL(`${server.url}/second-factor`);
        return halfway.page;
      },
    };
    for (const p of [personal.page, business.page, halfway.page]) {
      await p.setViewportSize({ width: WIDTH, height: 780 });
    }

    const measured: { page: string; width: number; culprits: string[] }[] = [];
    const visited: string[] = [];
    for (const route of PAGES) {
      if (SKIPPED[route.path]) continue;
      // Any other parameter is a console screen still to be built: it shows its frame for any id.
      const path = route.path.includes(":")
        ? ids[route.path] ? route.path.replace(":id", ids[route.path]) : route.path.replace(":id", "1")
        : route.path;
      const who = whoSees(route);
      const browsing = onboarding[route.path] ? await onboarding[route.path]() : pages[who];
      measured.push(...await measure(browsing, `${server.url}${path}`, `${who} ${path}`));
      // A page seen where it is (not where a guard sent the visitor).
      expect(new URL(browsing.url()).pathname, `${who} on ${path}`).toBe(path);
      visited.push(route.path);
    }
    expect(visited.length + Object.keys(SKIPPED).length).toBe(PAGES.length);
    const wide = measured.filter((m) => m.width > WIDTH).map((m) =>
      `${m.page}: ${m.width}px\n  ${m.culprits.join("\n  ")}`
    );
    if (wide.length) console.log(`Wider than ${WIDTH} px:\n${wide.join("\n")}`);
    expect(wide).toEqual([]);

    // At a common phone's 390 px the statements list shows, without scrolling sideways, until when
    // a statement is kept and its download link, and stays accessible.
    await customer.page.setViewportSize({ width: PHONE, height: 844 });
    await customer.page.goto(`${server.url}/account/reports`);
    await customer.page.waitForLoadState("networkidle");
    expect((await overflow(customer.page)).width).toBeLessThanOrEqual(PHONE);
    const row = customer.page.locator("tr[data-statement-id]").first();
    const inView = async (what: ReturnType<Page["locator"]>) => {
      const box = (await what.boundingBox())!;
      return box.x >= 0 && box.x + box.width <= PHONE;
    };
    const until = row.locator("[data-available-until]");
    expect(await until.isVisible()).toBe(true);
    expect(await until.textContent()).toMatch(/^Available until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    expect(await inView(until)).toBe(true);
    const link = row.getByRole("link", { name: /^Download statement-/ });
    expect(await inView(link)).toBe(true);
    expect(await seriousAxeViolations(customer.page)).toEqual([]);
    for (const opened of [visitor, customer, admin, personal, business, halfway]) await opened.context.close();
  });
});
