/**
 * The money journeys, in Chromium, typed and clicked as a person would: a visitor's currency
 * calculator, a customer funded by an administrator's receipt who converts GBP to EUR and sees
 * both balances change, and a quote that runs out before it is confirmed (on a second server with
 * QUOTE_VALIDITY_SECONDS=3). Besides: the dashboard's movements as a person reads them, and two
 * equal receipts recorded one after the other through the console's form.
 * MONEY_E2E_SCREENSHOTS=1 keeps a screenshot of each step in /tmp/money-e2e-*.png.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, vi } from "vitest";
import type { Database } from "../../db/client.ts";
import { createAdministrator } from "../../server/auth/setup.ts";
import { hydrated, newPage, seriousAxeViolations } from "../helpers/browser.ts";
import { test } from "../helpers/e2e-fixtures.ts";
import { openAccountThroughApi, openServerDatabase, signInThroughPages, waitForEmail } from "../helpers/e2e-mail.ts";
import {
  amountOf,
  availableShown,
  balancesShown,
  definition,
  ensureAdministrator,
  quoteFromApi,
  todayUtc,
  unexpected,
} from "../helpers/e2e-money.ts";
import { type RunningServer, startServer } from "../helpers/server.ts";

// The first test also starts the portal and the browser (the file's fixtures): more than the
// e2e project's 30 s leaves for it on a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

const ADMIN = { email: "treasury@portal.test", password: "treasury-password-1" };
const CHECKER = { email: "checker@portal.test", password: "checker-password-1" };

const path = (page: Page) => new URL(page.url()).pathname;

/** Counts the loads of the page's main frame from now on (a full page load or a navigation). */
function countLoads(page: Page) {
  let loads = 0;
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame()) loads++;
  });
  return () => loads;
}

/** Takes a screenshot in /tmp (for a failing run) and says where. */
async function snapshot(page: Page, name: string): Promise<string> {
  const file = `/tmp/money-e2e-${name}.png`;
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** With MONEY_E2E_SCREENSHOTS set, a screenshot of each step, to look at. */
async function step(page: Page, name: string): Promise<void> {
  if (Deno.env.get("MONEY_E2E_SCREENSHOTS")) await snapshot(page, name);
}

/**
 * The shortcut to a customer with money (the conversion journey covers these screens): the account
 * through the API, the administrator signed in through the pages, and a matched receipt recorded
 * through the call. Answers the customer's own browser context, still signed in from the sign-up.
 */
async function fundedCustomer(
  browser: Browser,
  base: string,
  mailbox: Database,
  who: { email: string; password: string; first: string; last: string },
  amount: string,
  reference = (accountRef: string) => accountRef,
) {
  const signup = await newPage(browser);
  const customer = await openAccountThroughApi(signup.page.request, mailbox, base, who);
  const admin = await newPage(browser);
  await ensureAdministrator(admin.page.request, base, ADMIN);
  await signInThroughPages(admin.page, mailbox, base, ADMIN.email, ADMIN.password);
  const recorded = await admin.page.request.post(`${base}/api/console/receipts`, {
    data: {
      amount,
      currency: "GBP",
      payer_name: `${who.first} ${who.last}`,
      reference: reference(customer.accountRef!),
      received_at: todayUtc(),
    },
  });
  expect(recorded.status(), await recorded.text()).toBeLessThan(300);
  expect((await recorded.json()).body.status).toBe("matched");
  await admin.context.close();
  return { ...signup, accountRef: customer.accountRef! };
}

describe("the currency calculator", () => {
  test("the calculator updates as a visitor types", async ({ server, browser }) => {
    const { page, context, problems } = await newPage(browser);
    page.setDefaultTimeout(10_000);
    const first = await quoteFromApi(page.request, server.url, {
      sell: "GBP",
      buy: "EUR",
      amount: "1000.00",
      fixed: "sell",
    });
    expect(first.status).toBe(200);
    const rates = await (await page.request.get(`${server.url}/api/rates?base=GBP`)).json() as {
      body: { as_of: string; source: string; indicative: boolean };
    };

    // Without JavaScript, the server's first paint is already a complete quote.
    const bare = await browser.newContext({ javaScriptEnabled: false });
    const noScript = await bare.newPage();
    const res = await noScript.goto(`${server.url}/calculator`);
    expect(res?.status()).toBe(200);
    const staticForm = noScript.getByRole("form", { name: "Currency calculator" });
    expect(await noScript.getByLabel("You send").inputValue()).toBe("1000.00");
    expect(await noScript.getByLabel("They receive").inputValue()).toBe(first.quote!.buy_amount);
    expect(await definition(staticForm, "They receive")).toBe(`${first.quote!.buy_amount} EUR`);
    await bare.close();

    await page.goto(`${server.url}/calculator`);
    await hydrated(page);
    const form = page.getByRole("form", { name: "Currency calculator" });
    const send = form.getByLabel("You send");
    const receive = form.getByLabel("They receive");
    const alert = form.getByRole("alert");

    // The first quote, complete: mid rate, our rate, fee, what arrives, the rates' date, "indicative".
    expect(await send.inputValue()).toBe("1000.00");
    expect(await receive.inputValue()).toBe(first.quote!.buy_amount);
    expect(await definition(form, "Mid-market rate")).toBe(`1 GBP = ${first.quote!.mid_rate} EUR`);
    expect(await definition(form, "Our rate")).toBe(`1 GBP = ${first.quote!.rate} EUR`);
    expect(await definition(form, "Fee")).toBe(`${first.quote!.fee} ${first.quote!.fee_currency}`);
    expect(await definition(form, "They receive")).toBe(`${first.quote!.buy_amount} EUR`);
    const formText = (await form.textContent()) ?? "";
    expect(formText).toContain(`Rates as of ${rates.body.as_of}`);
    expect(rates.body.indicative).toBe(true);
    expect(formText).toMatch(/indicative/);
    expect(await form.getByRole("link", { name: "Sign in to convert" }).isVisible()).toBe(true);
    await step(page, "1-calculator-first");

    // From here on, the page must not load again.
    await page.evaluate(
      () => ((globalThis as unknown as { __calculatorMarker: string }).__calculatorMarker = "still here"),
    );
    const loads = countLoads(page);

    // "You send": 2500, typed key by key.
    await send.fill("");
    await send.pressSequentially("2500", { delay: 40 });
    const q2500 =
      (await quoteFromApi(page.request, server.url, { sell: "GBP", buy: "EUR", amount: "2500", fixed: "sell" })).quote!;
    await expect.poll(() => receive.inputValue()).toBe(q2500.buy_amount);
    await expect.poll(() => definition(form, "They receive")).toBe(`${q2500.buy_amount} EUR`);
    expect(await definition(form, "Our rate")).toBe(`1 GBP = ${q2500.rate} EUR`);
    expect(await definition(form, "Fee")).toBe(`${q2500.fee} GBP`);
    expect(await send.inputValue()).toBe("2500");
    expect(q2500.buy_amount).not.toBe(first.quote!.buy_amount);

    // Another currency to receive: yen.
    await form.getByLabel("Currency to receive").selectOption("JPY");
    const jpy =
      (await quoteFromApi(page.request, server.url, { sell: "GBP", buy: "JPY", amount: "2500", fixed: "sell" })).quote!;
    await expect.poll(() => receive.inputValue()).toBe(jpy.buy_amount);
    await expect.poll(() => definition(form, "They receive")).toBe(`${jpy.buy_amount} JPY`);
    expect(await definition(form, "Mid-market rate")).toBe(`1 GBP = ${jpy.mid_rate} JPY`);
    expect(await definition(form, "Our rate")).toBe(`1 GBP = ${jpy.rate} JPY`);

    // "They receive": the send side fills (fixed=buy).
    await receive.fill("");
    await receive.pressSequentially("100000", { delay: 40 });
    const buy =
      (await quoteFromApi(page.request, server.url, { sell: "GBP", buy: "JPY", amount: "100000", fixed: "buy" }))
        .quote!;
    await expect.poll(() => send.inputValue()).toBe(buy.sell_amount);
    await expect.poll(() => definition(form, "You send")).toBe(`${buy.sell_amount} GBP`);
    expect(await receive.inputValue()).toBe("100000");
    await step(page, "1-calculator-fixed-buy");
    expect(await definition(form, "Fee")).toBe(`${buy.fee} GBP`);

    // A bad amount: the server's text, inline, and nothing priced.
    await send.fill("");
    await send.pressSequentially("12abc", { delay: 40 });
    const bad = await quoteFromApi(page.request, server.url, {
      sell: "GBP",
      buy: "JPY",
      amount: "12abc",
      fixed: "sell",
    });
    expect(bad.status).toBe(422);
    expect(bad.error).toBeTruthy();
    await expect.poll(() => alert.textContent()).toBe(bad.error);
    expect(await send.getAttribute("aria-invalid")).toBe("true");
    expect(await receive.inputValue()).toBe("");
    expect(await definition(form, "They receive")).toBe("—");
    await step(page, "1-calculator-error");

    // Mended: the error goes, a price comes back.
    await send.fill("");
    await send.pressSequentially("500", { delay: 40 });
    const q500 =
      (await quoteFromApi(page.request, server.url, { sell: "GBP", buy: "JPY", amount: "500", fixed: "sell" })).quote!;
    await expect.poll(() => receive.inputValue()).toBe(q500.buy_amount);
    expect(await alert.textContent()).toBe("");
    expect(await send.getAttribute("aria-invalid")).toBeNull();

    // All of it without a page load.
    expect(loads()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { __calculatorMarker?: string }).__calculatorMarker))
      .toBe("still here");
    expect(path(page)).toBe("/calculator");

    if (unexpected(problems, [422]).length) console.warn(`screenshot: ${await snapshot(page, "calculator")}`);
    expect(unexpected(problems, [422])).toEqual([]);
    await context.close();
  });
});

describe("converting money", () => {
  const CUSTOMER = { email: "ada.funded@portal.test", password: "funded-password-1", first: "Ada", last: "Funded" };

  test(
    "a customer funded by an administrator's receipt converts GBP to EUR and sees both balances change",
    async ({ server, db, browser }) => {
      // The customer, with an open account, through the API (the sign-in tests cover those pages).
      const signup = await newPage(browser);
      const customer = await openAccountThroughApi(signup.page.request, db, server.url, CUSTOMER);
      await signup.context.close();
      expect(customer.accountRef).toMatch(/^P\d{8}$/);
      const accountRef = customer.accountRef!;
      const payer = `${CUSTOMER.first} ${CUSTOMER.last}`;

      // The administrator records the money that arrived, through the console's form.
      const admin = await newPage(browser);
      admin.page.setDefaultTimeout(10_000);
      await ensureAdministrator(admin.page.request, server.url, ADMIN);
      await signInThroughPages(admin.page, db, server.url, ADMIN.email, ADMIN.password);
      expect(path(admin.page)).toBe("/console/users");
      await hydrated(admin.page);
      await admin.page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Receipts" }).click();
      await admin.page.waitForURL(`${server.url}/console/receipts`);
      await hydrated(admin.page);
      const receiptForm = admin.page.getByRole("form", { name: "Record a receipt" });
      await receiptForm.getByLabel("Amount").fill("1000.00");
      await receiptForm.getByLabel("Currency").selectOption("GBP");
      await receiptForm.getByLabel("Received on").fill(todayUtc());
      await receiptForm.getByLabel("Payer's name").fill(payer);
      const reference = `Top-up ${accountRef} thanks`;
      await receiptForm.getByLabel("Reference on the payment").fill(reference);
      await receiptForm.getByRole("button", { name: "Record the receipt" }).click();

      const receiptRow = admin.page.getByRole("row").filter({ hasText: reference });
      await expect.poll(() => receiptRow.count()).toBe(1);
      const rowText = (await receiptRow.textContent()) ?? "";
      expect(rowText).toContain(`Credited to ${accountRef}`);
      expect(rowText).toContain("1000.00 GBP");
      expect(rowText).toContain(payer);
      expect(rowText).toContain(todayUtc());
      await step(admin.page, "2-receipt");
      const toasts = admin.page.getByRole("region", { name: "Notifications" });
      await expect.poll(() => toasts.getByText("Receipt of 1000.00 GBP recorded").isVisible()).toBe(true);
      // The form is ready for the next one.
      expect(await receiptForm.getByLabel("Amount").inputValue()).toBe("");
      // The console's form, table and toast, drawn by the islands' kit: nothing serious for axe.
      expect(await seriousAxeViolations(admin.page)).toEqual([]);
      // And the server remembers it.
      await admin.page.reload();
      await hydrated(admin.page);
      expect(await admin.page.getByRole("row").filter({ hasText: reference }).textContent()).toContain(
        `Credited to ${accountRef}`,
      );
      const funded = await waitForEmail(db, CUSTOMER.email, { template: "funds-received" });
      expect(funded.text).toContain("1000.00 GBP");
      expect(unexpected(admin.problems)).toEqual([]);
      await admin.context.close();

      // The customer signs in and looks at the balances.
      const { page, context, problems } = await newPage(browser);
      page.setDefaultTimeout(10_000);
      await signInThroughPages(page, db, server.url, CUSTOMER.email, CUSTOMER.password);
      expect(path(page)).toBe("/account");
      await hydrated(page);
      const accountNav = page.getByRole("navigation", { name: "Account" });
      await accountNav.getByRole("link", { name: "Balances" }).click();
      await page.waitForURL(`${server.url}/account/balances`);
      await hydrated(page);
      expect(await availableShown(page, "GBP")).toBe(1000);
      const funding = page.getByRole("region", { name: "How to add money" });
      expect(await funding.isVisible()).toBe(true);
      await step(page, "2-balances-before");
      expect(await funding.textContent()).toContain(accountRef);
      expect(await funding.getByRole("button", { name: `Copy the reference ${accountRef}` }).isEnabled()).toBe(true);
      expect(await seriousAxeViolations(page)).toEqual([]);

      // Convert 250.00 GBP to EUR.
      await accountNav.getByRole("link", { name: "Convert" }).click();
      await page.waitForURL(`${server.url}/account/convert`);
      await hydrated(page);
      const convert = page.getByRole("form", { name: "Convert" });
      await convert.getByLabel("Currency to sell").selectOption("GBP");
      await convert.getByLabel("Currency to receive").selectOption("EUR");
      expect(await convert.textContent()).toContain("Available: 1000.00 GBP");
      await convert.getByLabel("Amount to sell").fill("250.00");
      await convert.getByRole("button", { name: "Get a quote" }).click();

      const quote = convert.getByRole("region", { name: "Your quote" });
      await expect.poll(() => quote.isVisible()).toBe(true);
      expect(await definition(quote, "You sell")).toBe("250.00 GBP");
      const received = await definition(quote, "You receive");
      expect(received).toMatch(/^\d+\.\d{2} EUR$/);
      const eurAmount = received.replace(" EUR", "");
      expect(await convert.getByLabel("Amount to receive").inputValue()).toBe(eurAmount);
      // The countdown is visible and counts down.
      const countdown = quote.getByText(/This quote is valid for \d+ seconds?\./);
      await expect.poll(() => countdown.isVisible()).toBe(true);
      const secondsNow = async () => Number(/valid for (\d+)/.exec((await countdown.textContent()) ?? "")?.[1]);
      const startedAt = await secondsNow();
      expect(startedAt).toBeGreaterThan(0);
      expect(startedAt).toBeLessThanOrEqual(30);
      await expect.poll(secondsNow, { timeout: 3_000 }).toBeLessThan(startedAt);
      await step(page, "2-quote");

      await quote.getByRole("button", { name: "Confirm" }).click();
      const notice = `Converted 250.00 GBP to ${eurAmount} EUR`;
      const toasts2 = page.getByRole("region", { name: "Notifications" });
      await expect.poll(() => toasts2.getByText(notice).isVisible()).toBe(true);
      expect(await convert.getByRole("status").textContent()).toBe(notice);
      expect(await quote.count()).toBe(0);
      // The balances beside the form follow.
      await expect.poll(() => availableShown(page, "GBP")).toBe(750);
      await expect.poll(() => availableShown(page, "EUR")).toBe(Number(eurAmount));
      await step(page, "2-converted");
      expect(await seriousAxeViolations(page)).toEqual([]);

      // The balances page, loaded afresh.
      await accountNav.getByRole("link", { name: "Balances" }).click();
      await page.waitForURL(`${server.url}/account/balances`);
      await hydrated(page);
      const shown = await balancesShown(page);
      expect(amountOf(shown.GBP?.available)).toBe(750);
      expect(amountOf(shown.EUR?.available)).toBe(Number(eurAmount));

      // The dashboard lists both movements.
      await accountNav.getByRole("link", { name: "Dashboard" }).click();
      await page.waitForURL(`${server.url}/account`);
      await hydrated(page);
      const movements = page.getByRole("region", { name: "Latest movements" });
      const rows = (await movements.getByRole("row").allTextContents()).map((r) => r.replace(/\s+/g, " "));
      expect(rows.some((r) => r.includes(reference) && /\+1,?000\.00 GBP/.test(r)), rows.join("\n")).toBe(true);
      expect(rows.some((r) => /-250\.00 GBP/.test(r)), rows.join("\n")).toBe(true);
      expect(rows.some((r) => r.includes(`+${eurAmount} EUR`)), rows.join("\n")).toBe(true);
      await step(page, "2-dashboard");
      const dash = await balancesShown(page);
      expect(amountOf(dash.GBP?.available)).toBe(750);
      expect(amountOf(dash.EUR?.available)).toBe(Number(eurAmount));
      if (unexpected(problems).length) console.warn(`screenshot: ${await snapshot(page, "convert")}`);
      expect(unexpected(problems)).toEqual([]);
      await context.close();
    },
    120_000,
  );
});

describe("the dashboard", () => {
  const READER = { email: "cleo.reader@portal.test", password: "reader-password-1", first: "Cleo", last: "Reader" };

  test("the latest movements are readable: dates apart from descriptions, each amount on one line", async ({ server, db, browser }) => {
    // A reference as people write them, so the description column takes its room.
    const { page, context, problems } = await fundedCustomer(
      browser,
      server.url,
      db,
      READER,
      "1000.00",
      (ref) => `Monthly top-up ${ref} from savings`,
    );
    page.setDefaultTimeout(10_000);
    // A conversion through the calls, so the table has both kinds of movement.
    const held = await page.request.post(`${server.url}/api/account/conversions/quote`, {
      data: { sell_currency: "GBP", buy_currency: "EUR", amount: "250.00", fixed: "sell" },
    });
    expect(held.status(), await held.text()).toBe(200);
    const done = await page.request.post(`${server.url}/api/account/conversions`, {
      data: { quote_id: String((await held.json()).body.id) },
    });
    expect(done.status(), await done.text()).toBe(201);

    await page.goto(`${server.url}/account`);
    await hydrated(page);
    const movements = page.getByRole("region", { name: "Latest movements" });
    expect(await movements.locator("tbody tr").count()).toBe(3);
    // Readable as a person sees it: the date does not run into the description, and each amount
    // with its currency sits on one line.
    const layout = await movements.locator("tbody tr").evaluateAll((trs) =>
      trs.map((tr) => {
        const cells = [...tr.querySelectorAll("td")];
        const box = (cell: Element) => {
          const range = document.createRange();
          range.selectNodeContents(cell);
          return range;
        };
        const date = box(cells[0]).getBoundingClientRect();
        const what = box(cells[1]).getBoundingClientRect();
        const amountLines = new Set([...box(cells[2]).getClientRects()].map((r) => Math.round(r.top))).size;
        return { text: tr.textContent, gap: Math.round(what.left - date.right), amountLines };
      })
    );
    for (const row of layout) {
      expect.soft(row.gap, `space between the date and the description in "${row.text}"`).toBeGreaterThanOrEqual(8);
      expect.soft(row.amountLines, `lines taken by the amount in "${row.text}"`).toBe(1);
    }
    if (layout.some((r) => r.gap < 8 || r.amountLines !== 1)) {
      console.warn(`screenshot: ${await snapshot(page, "dashboard")}`);
    }
    expect(unexpected(problems)).toEqual([]);
    await context.close();
  });
});

describe("receipts", () => {
  const TWICE = { email: "ben.twice@portal.test", password: "twice-password-1", first: "Ben", last: "Twice" };

  test("the same receipt recorded twice is held as a likely duplicate until a second administrator releases it", async ({ server, db, browser }) => {
    // The same payer, amount, reference and day, twice: two receipts, the second held (decision 026).
    const signup = await newPage(browser);
    const customer = await openAccountThroughApi(signup.page.request, db, server.url, TWICE);
    const accountRef = customer.accountRef!;
    const payer = `${TWICE.first} ${TWICE.last}`;

    const { page, context, problems } = await newPage(browser);
    page.setDefaultTimeout(10_000);
    await ensureAdministrator(page.request, server.url, ADMIN);
    await signInThroughPages(page, db, server.url, ADMIN.email, ADMIN.password);
    await page.goto(`${server.url}/console/receipts`);
    await hydrated(page);
    const form = page.getByRole("form", { name: "Record a receipt" });
    const rows = () => page.getByRole("row").filter({ hasText: payer });
    const sent: { key: string | undefined; replayed: string | null; id: unknown }[] = [];
    for (const n of [1, 2]) {
      await form.getByLabel("Amount").fill("100.00");
      await form.getByLabel("Received on").fill(todayUtc());
      await form.getByLabel("Payer's name").fill(payer);
      await form.getByLabel("Reference on the payment").fill(accountRef);
      const answered = page.waitForResponse((r) =>
        r.url().endsWith("/api/console/receipts") && r.request().method() === "POST"
      );
      await form.getByRole("button", { name: "Record the receipt" }).click();
      const res = await answered;
      sent.push({
        key: (await res.request().allHeaders())["idempotency-key"],
        replayed: await res.headerValue("idempotent-replayed"),
        id: (await res.json()).body?.id,
      });
      // The amount empties in the same render as the list takes the new row.
      await expect.poll(() => form.getByLabel("Amount").inputValue()).toBe("");
      expect.soft(await rows().count(), `rows on screen after recording receipt ${n}`).toBe(n);
    }
    // Each payment is a new write: a new Idempotency-Key, a new receipt, not a replay of the first.
    expect.soft(sent[1].key, `the second receipt's Idempotency-Key (${JSON.stringify(sent)})`).not.toBe(sent[0].key);
    expect.soft(sent[1].id, `the second receipt's id (${JSON.stringify(sent)})`).not.toBe(sent[0].id);
    // What the server kept: two receipts, the second held and not credited.
    await page.reload();
    await hydrated(page);
    expect.soft(await rows().count(), "receipts stored for the two payments").toBe(2);
    expect(await rows().filter({ hasText: "Held as a likely duplicate" }).count()).toBe(1);
    const gbp = async () => {
      const balances = await signup.page.request.get(`${server.url}/api/account/balances`);
      expect(balances.status()).toBe(200);
      return ((await balances.json()).body as { currency: string; available: string }[])
        .find((b) => b.currency === "GBP")?.available;
    };
    expect.soft(await gbp(), "the customer's GBP with the second receipt held").toBe("100.00");

    // The money did come twice: a second administrator releases the held one.
    const created = await createAdministrator(db, CHECKER.email, CHECKER.password);
    expect(typeof created).toBe("number");
    const checker = await newPage(browser);
    checker.page.setDefaultTimeout(10_000);
    await signInThroughPages(checker.page, db, server.url, CHECKER.email, CHECKER.password);
    await checker.page.goto(`${server.url}/console/receipts`);
    await hydrated(checker.page);
    const released = checker.page.waitForResponse((r) => r.url().endsWith("/release"));
    await checker.page.getByRole("button", { name: `Release 100.00 GBP from ${payer}` }).click();
    expect((await released).status()).toBe(200);
    expect.soft(await gbp(), "the customer's GBP after the release").toBe("200.00");

    expect(unexpected(problems)).toEqual([]);
    expect(unexpected(checker.problems)).toEqual([]);
    await checker.context.close();
    await signup.context.close();
    await context.close();
  });
});

describe("a quote that runs out", () => {
  let shortServer: RunningServer;
  let shortDb: Database;
  const SHORT = { email: "grace.quick@portal.test", password: "quick-password-1", first: "Grace", last: "Quick" };

  beforeAll(async () => {
    shortServer = await startServer(undefined, { QUOTE_VALIDITY_SECONDS: "3" });
    shortDb = await openServerDatabase(shortServer);
  });
  afterAll(async () => {
    shortDb?.$client.close();
    await shortServer?.stop();
  });

  test("an expired quote cannot be executed", async ({ browser }) => {
    const base = shortServer.url;
    // Setup through the API: the customer, the administrator, and 100.00 GBP received for them.
    const funded = await fundedCustomer(browser, base, shortDb, SHORT, "100.00");
    await funded.context.close();

    const { page, context, problems } = await newPage(browser);
    page.setDefaultTimeout(10_000);
    await signInThroughPages(page, shortDb, base, SHORT.email, SHORT.password);
    await page.goto(`${base}/account/convert`);
    await hydrated(page);
    const convert = page.getByRole("form", { name: "Convert" });
    await convert.getByLabel("Currency to sell").selectOption("GBP");
    await convert.getByLabel("Currency to receive").selectOption("EUR");
    await convert.getByLabel("Amount to sell").fill("20.00");
    const held = page.waitForResponse((r) =>
      r.url().endsWith("/api/account/conversions/quote") && r.request().method() === "POST"
    );
    await convert.getByRole("button", { name: "Get a quote" }).click();
    const firstQuote = (await (await held).json()).body as { id: string | number; buy_amount: string };

    const quote = convert.getByRole("region", { name: "Your quote" });
    await expect.poll(() => quote.isVisible()).toBe(true);
    const confirm = quote.getByRole("button", { name: "Confirm" });
    expect(await quote.getByText(/This quote is valid for [1-3] seconds?\./).isVisible()).toBe(true);
    expect(await confirm.isEnabled()).toBe(true);

    // The countdown reaches 0: Confirm is off and a new quote is offered.
    await expect.poll(() => quote.getByText("This quote has expired.").isVisible(), { timeout: 6_000 }).toBe(true);
    expect(await confirm.isDisabled()).toBe(true);
    await step(page, "3-expired");
    const again = quote.getByRole("button", { name: "Get a new quote" });
    expect(await again.isVisible()).toBe(true);
    expect(await again.isEnabled()).toBe(true);
    // The server agrees: that quote cannot be executed any more.
    await expect.poll(
      async () =>
        (await page.request.post(`${base}/api/account/conversions`, { data: { quote_id: String(firstQuote.id) } }))
          .status(),
      {
        timeout: 3_000,
      },
    ).toBe(409);
    expect(await availableShown(page, "GBP")).toBe(100);

    // A new quote, confirmed in time.
    await again.click();
    await expect.poll(() => quote.getByText(/This quote is valid for [1-3] seconds?\./).isVisible()).toBe(true);
    expect(await confirm.isEnabled()).toBe(true);
    const eur = (await definition(quote, "You receive")).replace(" EUR", "");
    await confirm.click();
    const notice = `Converted 20.00 GBP to ${eur} EUR`;
    await expect.poll(() => page.getByRole("region", { name: "Notifications" }).getByText(notice).isVisible()).toBe(
      true,
    );
    await expect.poll(() => availableShown(page, "GBP")).toBe(80);
    await expect.poll(() => availableShown(page, "EUR")).toBe(Number(eur));

    if (unexpected(problems).length) console.warn(`screenshot: ${await snapshot(page, "expired")}`);
    expect(unexpected(problems)).toEqual([]);
    await context.close();
  });
});
