/**
 * The recipients journey in Chromium (issue 8, item 1), typed and clicked as a person would: a
 * customer adds a GBP recipient with a sort code and account number that pass the UK modulus
 * check, is told while typing that a mistyped IBAN is wrong (before anything is sent), sees an
 * IBAN in groups of four, changes the bank details and sees the change recorded with its date and
 * author; then deletes a recipient after confirming.
 * RECIPIENTS_E2E_SCREENSHOTS=1 keeps a screenshot of each step in /tmp/recipients-e2e-*.png.
 */
import type { Page, Request } from "playwright-core";
import { describe, expect, vi } from "vitest";
import { hydrated, newPage, seriousAxeViolations } from "../helpers/browser.ts";
import { test } from "../helpers/e2e-fixtures.ts";
import { openAccountThroughApi } from "../helpers/e2e-mail.ts";
import { definition, unexpected } from "../helpers/e2e-money.ts";

// Each journey opens an account through the calls and types a few forms: more than the default 30 s
// when the machine is shared.
vi.setConfig({ testTimeout: 90_000 });

/** With RECIPIENTS_E2E_SCREENSHOTS set, a screenshot of the step, to look at. */
async function step(page: Page, name: string): Promise<void> {
  if (Deno.env.get("RECIPIENTS_E2E_SCREENSHOTS")) {
    await page.screenshot({ path: `/tmp/recipients-e2e-${name}.png`, fullPage: true });
  }
}

/** Every write the page sends to the recipients calls from now on. */
function recipientWrites(page: Page): Request[] {
  const writes: Request[] = [];
  page.on("request", (request) => {
    if (request.method() !== "GET" && new URL(request.url()).pathname.startsWith("/api/account/recipients")) {
      writes.push(request);
    }
  });
  return writes;
}

/**
 * The words of `selector`'s visible text that a line break splits (a sort code as "60-16 / -13"):
 * each run of characters without a space must sit on one line, whatever elements hold it.
 */
function splitWords(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((selector) => {
    const split: string[] = [];
    for (const root of document.querySelectorAll(selector)) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? "";
        for (const word of text.matchAll(/\S+/g)) {
          const tops = new Set<number>();
          for (let i = word.index; i < word.index + word[0].length; i++) {
            const range = document.createRange();
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            const rect = range.getClientRects()[0];
            if (rect) tops.add(Math.round(rect.top));
          }
          if (tops.size > 1) split.push(word[0]);
        }
      }
    }
    return split;
  }, selector);
}

describe("a customer's recipients", () => {
  test("on a phone, each row's Open is on screen without scrolling sideways, and bank details break only between groups", async ({ server, db, browser }) => {
    const { page, problems } = await newPage(browser);
    page.setDefaultTimeout(15_000);
    await page.setViewportSize({ width: 390, height: 844 });
    await openAccountThroughApi(page.request, db, server.url, {
      email: "kate.phone@portal.test",
      password: "recipients-password-3",
      first: "Kate",
      last: "Keys",
    });
    const add = async (data: unknown) => {
      const res = await page.request.post(`${server.url}/api/account/recipients`, { data });
      expect(res.status(), await res.text()).toBe(201);
      return (await res.json()).body;
    };
    // A long word in a name, as the widest row of a real list.
    await add({
      name: "Bartholomew Featherstonehaugh",
      type: "person",
      currency: "GBP",
      country: "GB",
      details: { sort_code: "601613", account_number: "31926819" },
    });
    await add({
      name: "Kate Sort",
      type: "person",
      currency: "GBP",
      country: "GB",
      details: { sort_code: "601613", account_number: "31926819" },
    });
    const hans = await add({
      name: "Hans Iban",
      type: "person",
      currency: "EUR",
      country: "DE",
      details: { iban: "DE89370400440532013000", bic: "COBADEFFXXX" },
    });
    const changed = await page.request.put(`${server.url}/api/account/recipients/${hans.id}`, {
      data: {
        name: "Hans Iban",
        type: "person",
        currency: "EUR",
        country: "DE",
        details: { iban: "DE75512108001245126199", bic: "COBADEFFXXX" },
      },
    });
    expect(changed.status(), await changed.text()).toBe(200);

    await page.goto(`${server.url}/account/recipients`);
    await hydrated(page);
    await step(page, "phone-list");
    const box = await page.locator("main table").evaluate((table) => {
      const box = table.parentElement!;
      return { scroll: box.scrollWidth, client: box.clientWidth, right: box.getBoundingClientRect().right };
    });
    expect(box.scroll, "the table fits its box").toBeLessThanOrEqual(box.client);
    for (const name of ["Bartholomew Featherstonehaugh", "Kate Sort", "Hans Iban"]) {
      const open = page.getByRole("button", { name: `Open ${name}` });
      const right = await open.evaluate((button) => button.getBoundingClientRect().right);
      expect(right, `Open ${name} is on screen`).toBeLessThanOrEqual(box.right);
      expect(await page.getByRole("row").filter({ hasText: name }).isVisible()).toBe(true);
    }
    expect(await page.locator("main tbody").textContent()).toContain("DE75 5121 0800 1245 1261 99");
    expect(await page.locator("main tbody").textContent()).toContain("60-16-13");
    expect(await splitWords(page, "main tbody")).toEqual([]);

    // The recipient's card and its history keep the groups whole too.
    await page.getByRole("button", { name: "Open Hans Iban" }).click();
    const card = page.getByRole("region", { name: "Hans Iban" });
    await card.getByRole("region", { name: "History" }).waitFor();
    await step(page, "phone-card");
    expect(await splitWords(page, "main section")).toEqual([]);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(unexpected(problems)).toEqual([]);
  });

  test("adds a GBP recipient, is warned while typing a wrong IBAN, changes the bank details and sees it recorded", async ({ server, db, browser }) => {
    const { page, problems } = await newPage(browser);
    page.setDefaultTimeout(15_000);
    await openAccountThroughApi(page.request, db, server.url, {
      email: "ada.recipients@portal.test",
      password: "recipients-password-1",
      first: "Ada",
      last: "Lovelace",
    });
    await page.goto(`${server.url}/account/recipients`);
    await hydrated(page);
    await expect.poll(() => page.getByRole("cell", { name: "No recipients yet." }).count()).toBe(1);
    const writes = recipientWrites(page);

    // A euro recipient first: a mistyped IBAN is refused while it is typed, before any call.
    await page.getByRole("button", { name: "Add a recipient" }).click();
    const form = page.getByRole("form", { name: "Add a recipient" });
    await form.getByLabel("Currency they receive").selectOption("EUR");
    await expect.poll(() => form.getByLabel("Country of their bank").inputValue()).toBe("DE");
    const iban = form.getByLabel("IBAN");
    await iban.pressSequentially("DE89 3704 0044 0532 0130 01");
    await expect.poll(() => iban.getAttribute("aria-invalid")).toBe("true");
    const ibanError = page.locator(`#${await iban.getAttribute("id")}-error`);
    expect(await ibanError.textContent()).toBe("This IBAN is not valid: look for a mistyped or swapped character.");
    await step(page, "1-iban-while-typing");
    // The form with a field's problem showing: nothing serious for axe.
    expect(await seriousAxeViolations(page)).toEqual([]);
    // Corrected, the problem goes as it is typed.
    await iban.press("Backspace");
    await iban.pressSequentially("0");
    await expect.poll(() => iban.getAttribute("aria-invalid")).toBe(null);
    expect(writes).toEqual([]);

    // The customer decides on a UK recipient: the form asks for what GBP needs instead.
    await form.getByLabel("Currency they receive").selectOption("GBP");
    await expect.poll(() => form.getByLabel("Country of their bank").inputValue()).toBe("GB");
    expect(await form.getByLabel("IBAN").count()).toBe(0);
    await form.getByLabel("Full name or business name").fill("Jean Dupont");
    await form.getByLabel("Sort code").fill("08-99-99");
    await form.getByLabel("Account number").fill("66374958");
    await form.getByRole("button", { name: "Save the recipient" }).click();

    const card = page.getByRole("region", { name: "Jean Dupont" });
    await card.waitFor();
    const bank = card.getByRole("region", { name: /^Bank details/ });
    expect(await definition(bank, "Sort code")).toBe("08-99-99");
    expect(await definition(bank, "Account number")).toBe("66374958");
    expect(await card.getByText("UK bank transfer (Faster Payments)").count()).toBeGreaterThan(0);
    expect(await card.getByText(/^Bank details changed on/).count()).toBe(0);
    expect(writes.map((w) => w.method())).toEqual(["POST"]);
    await step(page, "2-added");
    const id = Number(new URL(page.url()).searchParams.get("recipient"));
    expect(id).toBeGreaterThan(0);

    // New bank details: the change is recorded and shown, with when and by whom.
    await card.getByRole("button", { name: "Change" }).click();
    const change = page.getByRole("form", { name: "Change Jean Dupont" });
    await change.getByLabel("Sort code").fill("10-79-99");
    await change.getByLabel("Account number").fill("88837491");
    await step(page, "3-changing");
    await change.getByRole("button", { name: "Save the changes" }).click();
    // The notice at the top of the card: when, then by whom.
    const notice = /^Bank details changed on \d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC$/;
    await card.getByText(notice).waitFor();
    expect(await definition(bank, "Sort code")).toBe("10-79-99");
    expect(await card.getByText("Changed by Ada Lovelace.", { exact: false }).count()).toBe(1);
    const history = card.getByRole("region", { name: "History" }).getByRole("listitem")
      .filter({ hasText: "Bank details changed on" });
    expect(await history.count()).toBe(1);
    // What the sort code was (struck through) and became.
    expect(await history.locator("del").allTextContents()).toEqual(["08-99-99", "66374958"]);
    expect(await history.locator("ins").allTextContents()).toEqual(["10-79-99", "88837491"]);

    await step(page, "4-changed");
    // The card with its notice and history: nothing serious for axe.
    expect(await seriousAxeViolations(page)).toEqual([]);

    // The server says the same.
    const saved = await (await page.request.get(`${server.url}/api/account/recipients/${id}`)).json();
    expect(saved.body.details).toEqual({ sort_code: "107999", account_number: "88837491" });
    expect(saved.body.changes[0]).toMatchObject({
      kind: "details",
      by: "Ada Lovelace",
      before: { details: { sort_code: "089999", account_number: "66374958" } },
      after: { details: { sort_code: "107999", account_number: "88837491" } },
    });
    expect(saved.body.details_changed_at).toBe(saved.body.changes[0].at);

    // A reload opens the same recipient, rendered by the server.
    await page.reload();
    await hydrated(page);
    await page.getByRole("region", { name: "Jean Dupont" }).getByText(notice).waitFor();
    expect(unexpected(problems)).toEqual([]);
  });

  test("an IBAN reads in groups of four, and a recipient is deleted only once confirmed", async ({ server, db, browser }) => {
    const { page, problems } = await newPage(browser);
    page.setDefaultTimeout(15_000);
    await openAccountThroughApi(page.request, db, server.url, {
      email: "grace.recipients@portal.test",
      password: "recipients-password-2",
      first: "Grace",
      last: "Hopper",
    });
    await page.goto(`${server.url}/account/recipients`);
    await hydrated(page);
    await page.getByRole("button", { name: "Add a recipient" }).click();
    const form = page.getByRole("form", { name: "Add a recipient" });
    await form.getByLabel("Currency they receive").selectOption("EUR");
    await form.getByLabel("Country of their bank").selectOption("FR");
    await form.getByLabel("Full name or business name").fill("Dupont SARL");
    await form.getByText("A business").click();
    await form.getByLabel("IBAN").fill("fr14 2004 1010 0505 0001 3m02 606");
    // The company's bank (the default, in the UK) is outside the EEA: every SEPA payment names the BIC (decision 066).
    await form.getByLabel("BIC").fill("PSSTFRPPXXX");
    await form.getByRole("button", { name: "Save the recipient" }).click();
    const card = page.getByRole("region", { name: "Dupont SARL" });
    await card.waitFor();
    expect(await definition(card.getByRole("region", { name: /^Bank details/ }), "IBAN"))
      .toBe("FR14 2004 1010 0505 0001 3M02 606");

    await card.getByRole("button", { name: "Back to the list" }).click();
    await step(page, "5-list");
    const row = page.getByRole("row").filter({ hasText: "Dupont SARL" });
    expect(await row.getByRole("cell").nth(1).textContent()).toContain("FR14 2004 1010 0505 0001 3M02 606");

    await row.getByRole("button", { name: "Open Dupont SARL" }).click();
    await card.getByRole("button", { name: "Delete" }).click();
    const confirm = card.getByRole("button", { name: "Yes, delete Dupont SARL" });
    await expect.poll(() => confirm.evaluate((el) => el === document.activeElement)).toBe(true);
    await card.getByRole("button", { name: "Keep it" }).click();
    expect(await confirm.count()).toBe(0);
    // Closed without deleting, by Keep it or by Escape: the keyboard is back on Delete.
    const remove = card.getByRole("button", { name: "Delete" });
    await expect.poll(() => remove.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press("Enter");
    await expect.poll(() => confirm.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press("Escape");
    expect(await confirm.count()).toBe(0);
    await expect.poll(() => remove.evaluate((el) => el === document.activeElement)).toBe(true);
    await remove.click();
    await confirm.click();
    await page.getByRole("cell", { name: "No recipients yet." }).waitFor();
    const list = await (await page.request.get(`${server.url}/api/account/recipients`)).json();
    expect(list.body.items).toEqual([]);
    expect(unexpected(problems)).toEqual([]);
  });
});
