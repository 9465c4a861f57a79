/**
 * Helpers of the money journeys in Chromium (tests/e2e/money.test.ts): reading the balances table
 * and the calculator as a person reads them, and asking the server's own answer to compare with.
 */
import type { Locator, Page } from "playwright-core";
import { expect } from "vitest";
import type { Requester } from "./e2e-mail.ts";

/** The GET quote answer (docs/API.md, "Money"). */
export interface ApiQuote {
  sell_currency: string;
  buy_currency: string;
  sell_amount: string;
  buy_amount: string;
  mid_rate: string;
  rate: string;
  markup: string;
  fee: string;
  fee_currency: string;
  expires_at: string;
}

/**
 * The page's problems without the console's "Failed to load resource" lines for the HTTP statuses
 * the journey provokes on purpose (a 422 for a bad amount).
 */
export function unexpected(problems: string[], expectedStatuses: number[] = []): string[] {
  return problems.filter((p) =>
    !expectedStatuses.some((status) =>
      p.startsWith("console.error: Failed to load resource") && p.includes(`status of ${status}`)
    )
  );
}

/** A displayed amount ("1,000.00", "+250.00", "-250.00 GBP") as a number, to compare whatever the format. */
export function amountOf(text: string | null | undefined): number {
  const match = /[-+]?[\d,]*\.?\d+/.exec((text ?? "").replace(/\u2212/g, "-"));
  if (!match) throw new Error(`No amount in ${JSON.stringify(text)}`);
  return Number(match[0].replace(/,/g, ""));
}

/** GET /api/quote, as the calculator asks it; answers the status and the body or the error text. */
export async function quoteFromApi(
  request: Requester,
  baseUrl: string,
  query: { sell: string; buy: string; amount: string; fixed: "sell" | "buy" },
): Promise<{ status: number; quote: ApiQuote | null; error: string | null }> {
  const qs = new URLSearchParams(query).toString();
  const res = await request.get(`${baseUrl}/api/quote?${qs}`);
  const json = await res.json() as { body?: ApiQuote; error?: string };
  return { status: res.status(), quote: json.body ?? null, error: json.error ?? null };
}

/** Ensures the administrator exists (the setup call, refused with 403 once one does). */
export async function ensureAdministrator(
  request: Requester,
  baseUrl: string,
  admin: { email: string; password: string },
) {
  const res = await request.post(`${baseUrl}/api/setup`, { data: admin });
  expect([200, 403]).toContain(res.status());
}

/** The row of a definition list (<dt>label</dt><dd>value</dd>) inside `scope`: the value's text. */
export async function definition(scope: Locator, label: string): Promise<string> {
  const dt = scope.locator("dt").filter({ hasText: new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`) });
  expect(await dt.count(), `one <dt> "${label}"`).toBe(1);
  return (await dt.locator("xpath=following-sibling::dd[1]").textContent())?.trim() ?? "";
}

/** The balances table ("Your balances") of the page: currency → available and held, as shown. */
export async function balancesShown(page: Page): Promise<Record<string, { available: string; held: string }>> {
  const table = page.getByRole("table", { name: "Your balances" });
  if (!(await table.count())) return {};
  const out: Record<string, { available: string; held: string }> = {};
  for (const row of await table.locator("tbody tr").all()) {
    const currency = (await row.locator("th").textContent())?.trim() ?? "";
    const [available, held] = await row.locator("td").allTextContents();
    out[currency] = { available: available.trim(), held: held.trim() };
  }
  return out;
}

/** The available amount of one currency on the page's balances table, as a number (NaN when absent). */
export async function availableShown(page: Page, currency: string): Promise<number> {
  const row = (await balancesShown(page))[currency];
  return row ? amountOf(row.available) : NaN;
}

/** Today as the server reads it (UTC), YYYY-MM-DD. */
export const todayUtc = () => new Date().toISOString().slice(0, 10);
