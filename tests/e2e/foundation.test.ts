import AxeBuilder from "@axe-core/playwright";
import { describe, expect, vi } from "vitest";
import { hydrated, newPage } from "../helpers/browser.ts";
import { test } from "../helpers/e2e-fixtures.ts";

// The first test also starts the portal and the browser (the file's fixtures): more than the
// e2e project's 30 s leaves for it on a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

describe("colour mode", () => {
  test("a visitor's choice survives a reload, painted before any script runs", async ({ server, browser }) => {
    const { page, context, problems } = await newPage(browser);
    await page.goto(`${server.url}/`);
    await hydrated(page);
    expect(await page.getAttribute("html", "data-theme")).toBe("system");

    const toggle = page.getByRole("button", { name: /colour mode/i });
    while (!/dark/i.test((await toggle.getAttribute("aria-label")) ?? "")) await toggle.click();
    expect(await page.getAttribute("html", "data-theme")).toBe("dark");
    expect(await page.evaluate(() => localStorage.getItem("color-mode"))).toBe("dark");

    // Reload with JavaScript off: the server alone must paint the chosen mode.
    const noScript = await browser.newContext({ javaScriptEnabled: false, storageState: await context.storageState() });
    const bare = await noScript.newPage();
    await bare.goto(`${server.url}/`);
    expect(await bare.getAttribute("html", "data-theme")).toBe("dark");
    const background = await bare.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).not.toBe("rgb(255, 255, 255)");
    await noScript.close();

    await page.reload();
    await hydrated(page);
    expect(await page.getAttribute("html", "data-theme")).toBe("dark");
    expect(problems).toEqual([]);
    await context.close();
  });

  test("a page that forces dark or light shows it whatever the visitor chose", async ({ server, browser }) => {
    const { page, context, problems } = await newPage(browser);
    await context.addCookies([{ name: "color-mode", value: "light", url: server.url }]);
    await page.goto(`${server.url}/__fixtures/dark`);
    await hydrated(page);
    expect(await page.getAttribute("html", "data-theme")).toBe("dark");
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).not.toBe("rgb(255, 255, 255)");

    await context.addCookies([{ name: "color-mode", value: "dark", url: server.url }]);
    await page.goto(`${server.url}/__fixtures/light`);
    await hydrated(page);
    expect(await page.getAttribute("html", "data-theme")).toBe("light");
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(255, 255, 255)");
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe("notifications", () => {
  test("six notifications show five; the sixth appears once one is dismissed", async ({ server, browser }) => {
    const { page, context, problems } = await newPage(browser);
    await page.goto(`${server.url}/`);
    await hydrated(page);
    await page.evaluate(() => {
      for (let i = 1; i <= 6; i++) {
        globalThis.dispatchEvent(
          new CustomEvent("portal:notify", { detail: { title: `Notice ${i}`, color: "error" } }),
        );
      }
    });
    const notice = (n: number) => page.getByText(`Notice ${n}`, { exact: true });
    for (let i = 1; i <= 5; i++) await expect.poll(() => notice(i).isVisible()).toBe(true);
    expect(await notice(6).count()).toBe(0);

    await page.getByRole("button", { name: "Dismiss notification" }).first().click();
    await expect.poll(() => notice(6).isVisible()).toBe(true);
    await expect.poll(() => notice(1).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  test("a notification queued by the server survives the redirect", async ({ server, browser }) => {
    const { page, context } = await newPage(browser);
    await page.goto(`${server.url}/__fixtures/flash`);
    expect(new URL(page.url()).pathname).toBe("/");
    await expect.poll(() => page.getByText("Saved across a redirect").isVisible()).toBe(true);
    await page.reload();
    await hydrated(page);
    expect(await page.getByText("Saved across a redirect").count()).toBe(0);
    await context.close();
  });
});

test("a broken avatar image shows the initials of its alt text", async ({ server, browser }) => {
  const { page, context } = await newPage(browser);
  await page.goto(`${server.url}/__fixtures/avatar`);
  await hydrated(page);
  const avatar = page.getByRole("img", { name: "Grace Brewster Hopper" });
  await expect.poll(() => avatar.textContent()).toBe("GB");
  const box = await avatar.boundingBox();
  expect(box?.width).toBe(40);
  await context.close();
});

describe("errors", () => {
  test("an unknown address shows 'Page not found' with the full path, and no script", async ({ server, browser }) => {
    const { page, context } = await newPage(browser);
    const res = await page.goto(`${server.url}/account/statements/2026?format=pdf#top`);
    expect(res?.status()).toBe(404);
    await expect.poll(() => page.getByRole("heading", { name: "Page not found" }).isVisible()).toBe(true);
    expect(await page.getByText("/account/statements/2026?format=pdf").isVisible()).toBe(true);
    expect(await page.locator("script").count()).toBe(0);
    await context.close();
  });

  test("the error page's button goes home", async ({ server, browser }) => {
    const { page, context } = await newPage(browser);
    await page.goto(`${server.url}/console/users/abc`);
    await page.getByRole("link", { name: "Back To Home Page" }).click();
    await page.waitForURL(`${server.url}/`);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toContain("Send money abroad");
    await context.close();
  });
});

test("an axe scan of the home page finds no serious violations", async ({ server, browser }) => {
  for (const colorScheme of ["light", "dark"] as const) {
    const { page, context } = await newPage(browser, { colorScheme });
    await page.goto(`${server.url}/`);
    await hydrated(page);
    const results = await new AxeBuilder({ page }).analyze();
    const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    expect(serious.map((v) => `${colorScheme}: ${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual(
      [],
    );
    await context.close();
  }
});
