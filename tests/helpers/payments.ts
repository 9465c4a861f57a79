import { eq } from "drizzle-orm";
import { expect } from "vitest";
import type { Database } from "../../db/client.ts";
import { accountMembers } from "../../db/schema.ts";
import { recipients } from "../../db/schema-payments.ts";
import type { AccountRole } from "../../lib/permissions.ts";
import {
  type Admin,
  type ClientResponse,
  completeOnboarding,
  type Customer,
  expectStatus,
  personalProfile,
  registerCustomer,
  type TestAppLike,
  TestClient,
  type TestClock,
} from "./client.ts";
import { fund, type OpenCustomer, openCustomer } from "./money.ts";

/**
 * Factories for the payment journeys (issue 8): an account with people in each role, recipients,
 * and the calls a payer and an approver make. People join an account the way the account-users
 * work will let an owner invite them: here they are added to the account's members directly.
 */

type AppWithClock = TestAppLike & { clock: TestClock };

export interface Member extends Customer {
  role: AccountRole;
  name: string;
}

export interface PaymentAccount {
  accountId: number;
  owner: OpenCustomer & { name: string };
  /** Added with addMember. */
  members: Member[];
}

/** The account of a customer (their first). */
export async function accountIdOf(db: Database, userId: number): Promise<number> {
  const [row] = await db.select({ accountId: accountMembers.accountId }).from(accountMembers)
    .where(eq(accountMembers.userId, userId)).orderBy(accountMembers.accountId).limit(1);
  return row.accountId;
}

/** An account whose owner has `funds` ({GBP: "1000.00"}) on it, received through receipts. */
export async function paymentAccount(
  t: AppWithClock,
  admin: Admin,
  funds: Record<string, string> = {},
): Promise<PaymentAccount> {
  const owner = await openCustomer(t);
  for (const [currency, amount] of Object.entries(funds)) await fund(t, admin, owner, currency, amount);
  return { accountId: await accountIdOf(t.db, owner.id), owner: { ...owner, name: "Ada Lovelace" }, members: [] };
}

let people = 0;

/**
 * Someone who joins the account with a role: registered and onboarded (a flagged Personal profile,
 * so that no account of their own opens), then made a member of this one.
 */
export async function addMember(t: TestAppLike, account: PaymentAccount, role: AccountRole): Promise<Member> {
  people++;
  const first = ["Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances"][people % 6];
  const last = `Tester${people}`;
  const customer = await registerCustomer(t, { type: "Personal" });
  await completeOnboarding(customer, { profile: personalProfile({ first, last, public: true }) });
  await t.db.insert(accountMembers).values({
    accountId: account.accountId,
    userId: customer.id,
    role,
    createdAt: new Date(),
  });
  const member = { ...customer, role, name: `${first} ${last}` };
  account.members.push(member);
  return member;
}

export interface RecipientFields {
  name?: string;
  currency: string;
  country: string;
  details?: Record<string, string>;
  detailsChangedAt?: Date;
}

const DETAILS: Record<string, Record<string, string>> = {
  EUR: { iban: "DE89370400440532013000" },
  GBP: { sort_code: "200000", account_number: "55779911" },
  USD: { routing_number: "026009593", account_number: "123456789", account_type: "checking" },
};

/** A recipient of the account (written as the recipients work stores one), made now on the test clock. */
export async function addRecipient(t: AppWithClock, account: PaymentAccount, fields: RecipientFields): Promise<number> {
  const now = fields.detailsChangedAt ?? new Date(t.clock.now());
  const [row] = await t.db.insert(recipients).values({
    accountId: account.accountId,
    name: fields.name ?? "Jean Dupont",
    type: "person",
    currency: fields.currency,
    country: fields.country,
    email: null,
    details: fields.details ?? DETAILS[fields.currency] ?? { bic: "HSBCHKHHXXX", account_number: "123456" },
    detailsChangedAt: now,
    createdBy: account.owner.id,
    createdAt: now,
    updatedAt: now,
  }).returning({ id: recipients.id });
  return row.id;
}

export interface QuoteFields {
  recipient_id: number;
  amount: string;
  fixed?: "send" | "receive";
  sell_currency: string;
  priority?: boolean;
}

export function quotePayment(client: TestClient, fields: QuoteFields): Promise<ClientResponse> {
  return client.post("account/payments/quote", { fixed: "send", priority: false, ...fields });
}

/** A held quote, then the payment from it; answers the payment call's response. */
export async function pay(
  client: TestClient,
  fields: QuoteFields,
  reference = "Invoice 17",
  headers: Record<string, string> = {},
): Promise<ClientResponse> {
  const quoted = await quotePayment(client, fields);
  expectStatus(quoted, 200);
  return await client.post("account/payments", { quote_id: quoted.json.body.id, reference }, headers);
}

/** A payment made: answers its body. */
export async function paid(client: TestClient, fields: QuoteFields, reference?: string) {
  const res = await pay(client, fields, reference);
  expectStatus(res, 201);
  return res.json.body;
}

export function approve(client: TestClient, paymentId: number): Promise<ClientResponse> {
  return client.put(`account/pendingpayments/update?id=${paymentId}`);
}

export function reject(client: TestClient, paymentId: number, reason?: string): Promise<ClientResponse> {
  return client.delete(`account/pendingpayments/one?id=${paymentId}`, reason === undefined ? undefined : { reason });
}

export function cancel(client: TestClient, paymentId: number, reason?: string): Promise<ClientResponse> {
  return client.post(`account/payments/${paymentId}/cancel`, reason === undefined ? {} : { reason });
}

/** The account's rule, set by someone who may. */
export async function setRule(
  client: TestClient,
  rule: { mode: "none" | "all" | "above"; thresholds?: Record<string, string>; new_recipient?: boolean },
) {
  const res = await client.put("account/approvals", { thresholds: {}, new_recipient: false, ...rule });
  expectStatus(res, 200);
  return res.json.body;
}

/** available and held of a currency, as GET account/balances answers them. */
export async function balanceOf(client: TestClient, currency: string): Promise<{ available: string; held: string }> {
  const res = await client.get("account/balances");
  expectStatus(res, 200);
  const row = (res.json.body as { currency: string; available: string; held: string }[])
    .find((b) => b.currency === currency);
  expect(row, `a ${currency} balance`).toBeDefined();
  return { available: row!.available, held: row!.held };
}

/**
 * The payments rows changed (each UPDATE of one, by id, in order) while `work` runs: counted by a
 * trigger that lasts as long as `work` (the write connection sees it too).
 */
export async function paymentRowWrites(db: Database, work: () => Promise<void>): Promise<number[]> {
  await db.$client.execute("CREATE TABLE test_payment_writes (payment_id INTEGER NOT NULL)");
  await db.$client.execute(
    "CREATE TRIGGER test_payment_writes AFTER UPDATE ON payments BEGIN INSERT INTO test_payment_writes VALUES (NEW.id); END",
  );
  try {
    await work();
    const writes = await db.$client.execute("SELECT payment_id FROM test_payment_writes");
    return writes.rows.map((r) => Number(r.payment_id));
  } finally {
    await db.$client.execute("DROP TRIGGER test_payment_writes");
    await db.$client.execute("DROP TABLE test_payment_writes");
  }
}
