import { and, eq, sql } from "drizzle-orm";
import { expect, test } from "vitest";
import { accounts } from "../../db/schema.ts";
import { ledgerAccounts, ledgerTransfers } from "../../db/schema-money.ts";
import { checkLedger } from "../../server/ledger/check.ts";
import { InsufficientFunds } from "../../server/ledger/ledger.ts";
import { balancesOf, convert, creditReceipt } from "../../server/ledger/movements.ts";
import { testDatabase } from "../helpers/db.ts";

const db = await testDatabase();

const SELL = 10_000; // 100.00 GBP, fee included
const FEE = 50;
const BUY = 11_480; // 114.80 EUR
const REMAINDER = 123;

async function fundedCustomer(ref: string, gbp: number): Promise<number> {
  const [row] = await db.insert(accounts).values({ accountRef: ref, type: "Business", name: ref, openedAt: new Date() })
    .returning({ id: accounts.id });
  await creditReceipt(db, { accountId: row.id, currency: "GBP", amount: gbp, reference: `fund-${ref}` });
  return row.id;
}

async function house(purpose: string, currency: string): Promise<number> {
  const [row] = await db.select({ balance: ledgerAccounts.balance }).from(ledgerAccounts)
    .where(
      and(
        eq(ledgerAccounts.kind, "house"),
        eq(ledgerAccounts.purpose, purpose as "fee_income"),
        eq(ledgerAccounts.currency, currency),
      ),
    );
  return row?.balance ?? 0;
}

const conversion = (accountId: number, reference: string) => ({
  accountId,
  sellCurrency: "GBP",
  sellAmount: SELL,
  buyCurrency: "EUR",
  buyAmount: BUY,
  feeAmount: FEE,
  reference,
});

test("20 simultaneous conversions against a balance that covers 9: exactly 9 done, 11 refused, balances exact", async () => {
  const customer = await fundedCustomer("CONC1", 9 * SELL + REMAINDER);
  const started = performance.now();
  const outcomes = await Promise.allSettled(
    Array.from({ length: 20 }, (_, i) => convert(db, conversion(customer, `conc1-${i}`))),
  );
  const ms = Math.round(performance.now() - started);
  console.info(`ledger concurrency: 20 simultaneous conversions settled in ${ms} ms`);

  const done = outcomes.filter((o) => o.status === "fulfilled");
  const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected");
  expect(done).toHaveLength(9);
  expect(refused).toHaveLength(11);
  for (const r of refused) {
    expect(r.reason).toBeInstanceOf(InsufficientFunds);
    expect(r.reason).toMatchObject({
      currency: "GBP",
      available: REMAINDER,
      required: SELL,
      shortfall: SELL - REMAINDER,
    });
  }
  expect(new Set(done.map((o) => o.value.transferId)).size).toBe(9);
  expect(done.every((o) => !o.value.replayed)).toBe(true);

  expect(await balancesOf(db, customer)).toEqual([
    { currency: "EUR", available: 9 * BUY, held: 0 },
    { currency: "GBP", available: REMAINDER, held: 0 },
  ]);
  expect(await house("fee_income", "GBP")).toBe(9 * FEE);
  expect(await house("fx_position", "GBP")).toBe(9 * (SELL - FEE));
  expect(await house("fx_position", "EUR")).toBe(-9 * BUY);
  const [{ n }] = await db.select({ n: sql<number>`count(*)` }).from(ledgerTransfers).where(
    eq(ledgerTransfers.kind, "conversion"),
  );
  expect(n).toBe(9);
  const report = await checkLedger(db);
  expect(report.violations).toEqual([]);
});

test("the same conversion sent 10 times at once is booked once; the others replay it", async () => {
  const customer = await fundedCustomer("CONC2", 3 * SELL);
  const outcomes = await Promise.all(
    Array.from({ length: 10 }, () => convert(db, conversion(customer, "conc2-same-key"))),
  );
  expect(new Set(outcomes.map((o) => o.transferId)).size).toBe(1);
  expect(outcomes.filter((o) => !o.replayed)).toHaveLength(1);
  expect(await balancesOf(db, customer)).toEqual([
    { currency: "EUR", available: BUY, held: 0 },
    { currency: "GBP", available: 2 * SELL, held: 0 },
  ]);
  expect((await checkLedger(db)).ok).toBe(true);
});

test("two processes converting against the same balance at once never overdraw it", async () => {
  const customer = await fundedCustomer("CONC3", 9 * SELL + REMAINDER);
  const path = await databasePath();
  const worker = (name: string) => {
    const code = `
      import { openDatabase } from "${new URL("../../db/client.ts", import.meta.url).href}";
      import { convert } from "${new URL("../../server/ledger/movements.ts", import.meta.url).href}";
      const db = await openDatabase({ url: ${JSON.stringify(`file:${path}`)} });
      const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => convert(db, {
        accountId: ${customer}, sellCurrency: "GBP", sellAmount: ${SELL}, buyCurrency: "EUR", buyAmount: ${BUY},
        feeAmount: ${FEE}, reference: "conc3-${name}-" + i,
      })));
      db.$client.close();
      console.log(JSON.stringify(outcomes.map((o) => o.status === "fulfilled" ? "done" : o.reason.name)));
    `;
    return new Deno.Command(Deno.execPath(), {
      // --quiet: on a fresh machine Deno reports its first download of package metadata on stderr.
      args: ["eval", "--quiet", "--config", "deno.json", code],
      cwd: new URL("../..", import.meta.url).pathname,
      stdout: "piped",
      stderr: "piped",
    }).output();
  };
  const results = await Promise.all([worker("a"), worker("b")]);
  const outcomes = results.flatMap((r) => {
    expect(new TextDecoder().decode(r.stderr)).toBe("");
    expect(r.code).toBe(0);
    return JSON.parse(new TextDecoder().decode(r.stdout)) as string[];
  });
  expect(outcomes.filter((o) => o === "done")).toHaveLength(9);
  expect(outcomes.filter((o) => o === "InsufficientFunds")).toHaveLength(11);
  expect(await balancesOf(db, customer)).toEqual([
    { currency: "EUR", available: 9 * BUY, held: 0 },
    { currency: "GBP", available: REMAINDER, held: 0 },
  ]);
  expect((await checkLedger(db)).violations).toEqual([]);
}, 60_000);

/** The file behind the test database (PRAGMA database_list). */
async function databasePath(): Promise<string> {
  const rows = await db.all<{ name: string; file: string }>(sql`PRAGMA database_list`);
  return rows.find((r) => r.name === "main")!.file;
}
