import AxeBuilder from "@axe-core/playwright";
import { type Browser, chromium, type Page } from "playwright-core";

/** Debian's Chromium, headless, with the flags this closed network needs (ENVIRONMENT.md). */
export function launchChromium(): Promise<Browser> {
  const executablePath = Deno.env.get("CHROMIUM_PATH") ?? "/usr/bin/chromium";
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
}

/**
 * A fresh page in its own context. Script errors and console errors are collected, so a test can
 * insist that a journey ran clean.
 */
export async function newPage(browser: Browser, options: { colorScheme?: "light" | "dark" } = {}) {
  const context = await browser.newContext({ colorScheme: options.colorScheme ?? "light" });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console.error: ${msg.text()}`);
  });
  return { context, page, problems };
}

/** Waits until every island of the page has hydrated (the client marks <html> when done). */
export async function hydrated(page: Page): Promise<void> {
  await page.waitForSelector("html[data-hydrated]", { state: "attached" });
}

/** The serious and critical problems an axe scan finds on the page as it is now, one line each. */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}
