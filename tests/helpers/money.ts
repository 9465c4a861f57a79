import { expect } from "vitest";
import type { Database } from "../../db/client.ts";
import { checkLedger } from "../../server/ledger/check.ts";
import {
  type Admin,
  type ClientResponse,
  completeOnboarding,
  createAdmin,
  type Customer,
  expectStatus,
  registerCustomer,
  signinApp,
  type TestAppLike,
  TestClient,
  type TestClock,
} from "./client.ts";

/**
 * Factories for the money journeys (DESIGN.md section 4, docs/API.md "Money"): a customer with an
 * open account, funded through the console's receipts as an operator would fund them, and small
 * readers of what the customer sees (balances, movements).
 */

export type MoneyApp = Awaited<ReturnType<typeof signinApp>>;
type AppWithClock = TestAppLike & { clock: TestClock };

/** The real app on a fresh database (money seeded), a test clock, and its first administrator. */
export async function moneyApp(options: { env?: Record<string, string> } = {}): Promise<{ t: MoneyApp; admin: Admin }> {
  const t = await signinApp(options);
  const admin = await createAdmin(t);
  return { t, admin };
}

export interface OpenCustomer extends Customer {
  /** The account's reference, which the customer quotes to fund it. */
  accountRef: string;
}

/** A Personal customer with an open account (registered, profile, identity GREEN), signed in. */
export async function openCustomer(t: TestAppLike): Promise<OpenCustomer> {
  const customer = await registerCustomer(t, { type: "Personal" });
  const confirmed = await completeOnboarding(customer);
  const accountRef = confirmed.json.body.account_ref as string;
  expect(accountRef, "the account opened at once").toMatch(/^P\d{8}$/);
  return { ...customer, accountRef };
}

/** A Business customer who finished onboarding and waits on /processing: no account yet. */
export async function customerWithoutAccount(t: TestAppLike): Promise<Customer> {
  const customer = await registerCustomer(t, { type: "Business" });
  await completeOnboarding(customer);
  const me = await customer.client.get("account/whoami");
  expectStatus(me, 200);
  expect(me.json.body.account).toBe(false);
  return customer;
}

export interface ReceiptFields {
  amount: string;
  currency: string;
  reference: string;
  payer_name?: string;
  received_at?: string;
}

/** POST console/receipts as the administrator; answers the raw response. */
export function postReceipt(t: AppWithClock, admin: Admin, fields: ReceiptFields): Promise<ClientResponse> {
  return admin.client.post("console/receipts", {
    payer_name: "A. Payer",
    received_at: t.clock.today(),
    ...fields,
  });
}

/** Records a receipt quoting the customer's account_ref and checks that it matched. */
export async function fund(t: AppWithClock, admin: Admin, customer: OpenCustomer, currency: string, amount: string) {
  const res = await postReceipt(t, admin, { amount, currency, reference: `Funding ${customer.accountRef} thanks` });
  expectStatus(res, 201);
  expect(res.json.body).toMatchObject({ status: "matched", account_ref: customer.accountRef, amount, currency });
  return res.json.body;
}

/** A customer with an open account and `amount` of `currency` on it, received through a receipt. */
export async function fundedCustomer(
  t: AppWithClock,
  admin: Admin,
  currency: string,
  amount: string,
): Promise<OpenCustomer> {
  const customer = await openCustomer(t);
  await fund(t, admin, customer, currency, amount);
  return customer;
}

/** The customer's available balances as GET account/balances answers them, by currency. */
export async function balances(client: TestClient): Promise<Record<string, string>> {
  const res = await client.get("account/balances");
  expectStatus(res, 200);
  return Object.fromEntries(
    (res.json.body as { currency: string; available: string }[]).map((b) => [b.currency, b.available]),
  );
}

/** The ledger's invariants hold (server/ledger/check.ts); shows the violations when they do not. */
export async function expectLedgerSound(db: Database): Promise<void> {
  const report = await checkLedger(db);
  expect(report.violations).toEqual([]);
  expect(report.ok).toBe(true);
}

/** Minor units of a decimal string with `digits` decimals ("100.50", 2 → 10050n). */
export function minorOf(text: string, digits: number): bigint {
  const [whole, frac = ""] = text.split(".");
  expect(frac.length, `${text} has ${digits} decimals`).toBe(digits);
  return BigInt(whole + frac);
}

/** A decimal string of minor units (10050n, 2 → "100.50"). */
export function decimalOf(minor: bigint, digits: number): string {
  if (digits === 0) return String(minor);
  const s = String(minor).padStart(digits + 1, "0");
  return `${s.slice(0, -digits)}.${s.slice(-digits)}`;
}
