import { asc, eq, sql } from "drizzle-orm";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { type Database, openMigratedDatabase } from "../../db/client.ts";
import { accounts, users } from "../../db/schema.ts";
import { ledgerAccounts, ledgerEntries, ledgerTransfers } from "../../db/schema-money.ts";
import { checkLedger } from "../../server/ledger/check.ts";
import {
  customerAccount,
  houseAccount,
  InsufficientFunds,
  LedgerError,
  postTransfer,
  ReferenceConflict,
} from "../../server/ledger/ledger.ts";
import { allocateReceipt, balancesOf, convert, correction, creditReceipt } from "../../server/ledger/movements.ts";
import { testDatabase } from "../helpers/db.ts";

const db = await testDatabase();
let refs = 0;

async function openAccount(): Promise<number> {
  const [row] = await db.insert(accounts)
    .values({ accountRef: `LB${++refs}`, type: "Personal", name: `Customer ${refs}`, openedAt: new Date() })
    .returning({ id: accounts.id });
  return row.id;
}

const [admin] = await db.insert(users).values({ username: "ledger-admin@example.com", level: "Admin", validated: true })
  .returning({ id: users.id });

async function balance(accountId: number | null, currency: string, purpose = "balance"): Promise<number> {
  const rows = await db.select().from(ledgerAccounts).where(eq(ledgerAccounts.currency, currency));
  const row = rows.find((r) => r.accountId === accountId && r.purpose === purpose);
  return row?.balance ?? 0;
}

/** Every ledger row, to show that a refused movement changed nothing at all. */
async function snapshot() {
  return {
    accounts: await db.select().from(ledgerAccounts).orderBy(asc(ledgerAccounts.id)),
    transfers: await db.select().from(ledgerTransfers).orderBy(asc(ledgerTransfers.id)),
    entries: await db.select().from(ledgerEntries).orderBy(asc(ledgerEntries.id)),
  };
}

/** The database's own message for a refused statement (drizzle wraps it in a "Failed query"). */
function refusal(query: PromiseLike<unknown>): Promise<string> {
  return Promise.resolve(query).then(
    () => "(not refused)",
    (e: { message: string; cause?: { message: string } }) => e.cause?.message ?? e.message,
  );
}

async function expectSound() {
  const report = await checkLedger(db);
  expect(report.violations).toEqual([]);
  expect(report.ok).toBe(true);
  return report;
}

describe("receipts", () => {
  test("a receipt credits the customer and balances against incoming funds; the same reference books once", async () => {
    const customer = await openAccount();
    const first = await creditReceipt(db, {
      accountId: customer,
      currency: "GBP",
      amount: 10_000,
      reference: "rcpt-1",
    });
    expect(first.replayed).toBe(false);
    expect(await balancesOf(db, customer)).toEqual([{ currency: "GBP", available: 10_000, held: 0 }]);
    const entries = await db.select().from(ledgerEntries).where(eq(ledgerEntries.transferId, first.transferId));
    expect(entries.map((e) => e.amount).sort((a, b) => a - b)).toEqual([-10_000, 10_000]);

    const again = await creditReceipt(db, {
      accountId: customer,
      currency: "GBP",
      amount: 10_000,
      reference: "rcpt-1",
    });
    expect(again).toEqual({ transferId: first.transferId, replayed: true });
    expect(await balance(customer, "GBP")).toBe(10_000);
    await expect(creditReceipt(db, { accountId: customer, currency: "GBP", amount: 9_999, reference: "rcpt-1" }))
      .rejects.toBeInstanceOf(ReferenceConflict);
    const report = await expectSound();
    expect(report.currencies.find((c) => c.currency === "GBP")).toMatchObject({ customers: 10_000, total: 0 });
  });

  test("an unmatched receipt waits in unallocated funds until it is allocated, once", async () => {
    const customer = await openAccount();
    const before = await balance(null, "EUR", "unallocated_funds");
    await creditReceipt(db, { accountId: null, currency: "EUR", amount: 5_000, reference: "rcpt-unmatched" });
    expect(await balance(null, "EUR", "unallocated_funds")).toBe(before + 5_000);
    expect(await balancesOf(db, customer)).toEqual([]);

    await allocateReceipt(db, {
      currency: "EUR",
      amount: 5_000,
      toAccountId: customer,
      reference: "rcpt-unmatched",
      createdBy: admin.id,
    });
    const replay = await allocateReceipt(db, {
      currency: "EUR",
      amount: 5_000,
      toAccountId: customer,
      reference: "rcpt-unmatched",
    });
    expect(replay.replayed).toBe(true);
    expect(await balancesOf(db, customer)).toEqual([{ currency: "EUR", available: 5_000, held: 0 }]);
    expect(await balance(null, "EUR", "unallocated_funds")).toBe(before);

    // Unallocated funds never go below zero: allocating money that never came is refused.
    const state = await snapshot();
    await expect(
      allocateReceipt(db, { currency: "EUR", amount: before + 1, toAccountId: customer, reference: "too-much" }),
    )
      .rejects.toBeInstanceOf(InsufficientFunds);
    expect(await snapshot()).toEqual(state);
    await expectSound();
  });

  test("bad input is refused before anything is written", async () => {
    const customer = await openAccount();
    const state = await snapshot();
    for (
      const input of [
        { accountId: customer, currency: "gbp", amount: 1, reference: "x" },
        { accountId: customer, currency: "GBP", amount: 0, reference: "x" },
        { accountId: customer, currency: "GBP", amount: 1.5, reference: "x" },
        { accountId: customer, currency: "GBP", amount: 2 ** 53, reference: "x" },
        { accountId: customer, currency: "GBP", amount: 1, reference: "" },
        { accountId: 999_999, currency: "GBP", amount: 1, reference: "x" },
      ]
    ) {
      await expect(creditReceipt(db, input)).rejects.toBeInstanceOf(LedgerError);
    }
    expect(await snapshot()).toEqual(state);
  });
});

describe("conversions", () => {
  test("with enough funds: sell balance down, buy balance up, fee booked, each currency sums to zero", async () => {
    const customer = await openAccount();
    await creditReceipt(db, { accountId: customer, currency: "GBP", amount: 100_000, reference: `fund-${customer}` });
    const feeBefore = await balance(null, "GBP", "fee_income");
    const positionGbp = await balance(null, "GBP", "fx_position");
    const positionEur = await balance(null, "EUR", "fx_position");

    const done = await convert(db, {
      accountId: customer,
      sellCurrency: "GBP",
      sellAmount: 60_000,
      buyCurrency: "EUR",
      buyAmount: 69_310,
      feeAmount: 300,
      reference: `conv-${customer}`,
    });
    expect(done.replayed).toBe(false);
    expect(await balancesOf(db, customer)).toEqual([
      { currency: "EUR", available: 69_310, held: 0 },
      { currency: "GBP", available: 40_000, held: 0 },
    ]);
    expect(await balance(null, "GBP", "fee_income")).toBe(feeBefore + 300);
    expect(await balance(null, "GBP", "fx_position")).toBe(positionGbp + 59_700);
    expect(await balance(null, "EUR", "fx_position")).toBe(positionEur - 69_310);
    const entries = await db.select().from(ledgerEntries).where(eq(ledgerEntries.transferId, done.transferId));
    expect(entries).toHaveLength(5);
    for (const currency of ["GBP", "EUR"]) {
      expect(entries.filter((e) => e.currency === currency).reduce((s, e) => s + e.amount, 0)).toBe(0);
    }

    // Idempotent: the same reference replays, and changes nothing.
    const state = await snapshot();
    const again = await convert(db, {
      accountId: customer,
      sellCurrency: "GBP",
      sellAmount: 60_000,
      buyCurrency: "EUR",
      buyAmount: 69_310,
      feeAmount: 300,
      reference: `conv-${customer}`,
    });
    expect(again).toEqual({ transferId: done.transferId, replayed: true });
    expect(await snapshot()).toEqual(state);
    await expectSound();
  });

  test("short funds: InsufficientFunds with the currency and the shortfall, and nothing changed", async () => {
    const customer = await openAccount();
    await creditReceipt(db, { accountId: customer, currency: "GBP", amount: 5_000, reference: `fund-${customer}` });
    const state = await snapshot();
    const refused = await convert(db, {
      accountId: customer,
      sellCurrency: "GBP",
      sellAmount: 5_001,
      buyCurrency: "JPY",
      buyAmount: 9_000,
      feeAmount: 50,
      reference: `conv-short-${customer}`,
    }).catch((e) => e);
    expect(refused).toBeInstanceOf(InsufficientFunds);
    expect(refused).toMatchObject({
      code: "insufficient_funds",
      currency: "GBP",
      accountId: customer,
      available: 5_000,
      required: 5_001,
      shortfall: 1,
    });
    expect(refused.message).toMatch(/Insufficient funds: the GBP balance is 5000 and 5001 is needed, 1 short/);
    // Not even the JPY balance or the JPY position was created.
    expect(await snapshot()).toEqual(state);
    expect(await balancesOf(db, customer)).toEqual([{ currency: "GBP", available: 5_000, held: 0 }]);
    await expectSound();
  });

  test("invalid conversions are refused", async () => {
    const customer = await openAccount();
    const base = {
      accountId: customer,
      sellCurrency: "GBP",
      sellAmount: 100,
      buyCurrency: "EUR",
      buyAmount: 110,
      feeAmount: 1,
      reference: "bad",
    };
    for (
      const change of [
        { buyCurrency: "GBP" },
        { feeAmount: 100 },
        { feeAmount: -1 },
        { buyAmount: 0 },
        { sellAmount: 10.5 },
      ]
    ) {
      await expect(convert(db, { ...base, ...change })).rejects.toBeInstanceOf(LedgerError);
    }
  });

  test("inside the caller's transaction: a refusal undoes only the conversion; a failure after it undoes everything", async () => {
    const customer = await openAccount();
    await creditReceipt(db, { accountId: customer, currency: "GBP", amount: 1_000, reference: `fund-${customer}` });

    // The caller catches the refusal and commits its own work.
    const outcome = await db.transaction(async (tx) => {
      await tx.insert(users).values({ username: `caller-${customer}@example.com` });
      return await convert(tx, {
        accountId: customer,
        sellCurrency: "GBP",
        sellAmount: 2_000,
        buyCurrency: "EUR",
        buyAmount: 2_300,
        feeAmount: 0,
        reference: `nested-${customer}`,
      }).catch((e) => e);
    });
    expect(outcome).toBeInstanceOf(InsufficientFunds);
    expect(await db.select().from(users).where(eq(users.username, `caller-${customer}@example.com`))).toHaveLength(1);

    // The caller fails after a successful conversion: nothing of it remains.
    const state = await snapshot();
    await expect(db.transaction(async (tx) => {
      await convert(tx, {
        accountId: customer,
        sellCurrency: "GBP",
        sellAmount: 500,
        buyCurrency: "EUR",
        buyAmount: 575,
        feeAmount: 5,
        reference: `nested-2-${customer}`,
      });
      throw new Error("the caller failed");
    })).rejects.toThrow("the caller failed");
    expect(await snapshot()).toEqual(state);
    await expectSound();
  });
});

describe("transfers and corrections", () => {
  test("an unbalanced, one-sided or empty transfer is refused", async () => {
    const customer = await openAccount();
    const state = await snapshot();
    const post = (entries: { ledgerAccountId: number; amount: number }[]) =>
      db.transaction((tx) =>
        postTransfer(tx, { kind: "correction", description: "test", createdBy: admin.id, entries })
      );
    const [gbp, incoming, eurPosition] = await db.transaction(async (tx) => [
      await customerAccount(tx, customer, "GBP"),
      await houseAccount(tx, "incoming_funds", "GBP"),
      await houseAccount(tx, "fx_position", "EUR"),
    ]);
    await expect(post([{ ledgerAccountId: incoming.id, amount: -100 }, { ledgerAccountId: gbp.id, amount: 99 }]))
      .rejects.toMatchObject({ code: "unbalanced_transfer" });
    // Sums to zero in number, but across two currencies.
    await expect(post([{ ledgerAccountId: eurPosition.id, amount: -100 }, { ledgerAccountId: gbp.id, amount: 100 }]))
      .rejects.toMatchObject({
        code: "unbalanced_transfer",
        message: expect.stringMatching(/EUR -100, GBP 100|GBP 100, EUR -100/),
      });
    await expect(post([{ ledgerAccountId: gbp.id, amount: 100 }])).rejects.toMatchObject({ code: "invalid_transfer" });
    await expect(post([])).rejects.toMatchObject({ code: "invalid_transfer" });
    await expect(post([{ ledgerAccountId: incoming.id, amount: 0 }, { ledgerAccountId: gbp.id, amount: 0 }]))
      .rejects.toMatchObject({ code: "invalid_transfer" });
    await expect(post([{ ledgerAccountId: incoming.id, amount: -100 }, { ledgerAccountId: 987_654, amount: 100 }]))
      .rejects.toMatchObject({ code: "unknown_account" });
    const after = await snapshot();
    expect(after.transfers).toEqual(state.transfers);
    expect(after.entries).toEqual(state.entries);
    await expectSound();
  });

  test("a correction is new entries; one that would overdraw a customer is refused", async () => {
    const customer = await openAccount();
    await creditReceipt(db, { accountId: customer, currency: "KWD", amount: 1_500, reference: `fund-${customer}` });
    const [kwd, incoming] = await db.transaction(async (tx) => [
      await customerAccount(tx, customer, "KWD"),
      await houseAccount(tx, "incoming_funds", "KWD"),
    ]);
    // The receipt was really 1.000 KWD: take 500 back, with entries that reverse the excess.
    const fixed = await correction(db, {
      description: "Receipt recorded 0.500 KWD too high",
      createdBy: admin.id,
      reference: `fix-${customer}`,
      entries: [{ ledgerAccountId: kwd.id, amount: -500 }, { ledgerAccountId: incoming.id, amount: 500 }],
    });
    expect(fixed.replayed).toBe(false);
    expect(await balance(customer, "KWD")).toBe(1_000);
    const [transfer] = await db.select().from(ledgerTransfers).where(eq(ledgerTransfers.id, fixed.transferId));
    expect(transfer).toMatchObject({ kind: "correction", createdBy: admin.id });

    const state = await snapshot();
    await expect(correction(db, {
      description: "too much",
      createdBy: admin.id,
      entries: [{ ledgerAccountId: kwd.id, amount: -1_001 }, { ledgerAccountId: incoming.id, amount: 1_001 }],
    })).rejects.toMatchObject({ code: "insufficient_funds", shortfall: 1 });
    expect(await snapshot()).toEqual(state);
    await expectSound();
  });
});

describe("the database protects the ledger", () => {
  test("entries and transfers cannot be updated or deleted; accounts keep their owner and currency", async () => {
    const customer = await openAccount();
    const { transferId } = await creditReceipt(db, {
      accountId: customer,
      currency: "GBP",
      amount: 700,
      reference: `fund-${customer}`,
    });
    const [entry] = await db.select().from(ledgerEntries).where(eq(ledgerEntries.transferId, transferId));
    expect(await refusal(db.update(ledgerEntries).set({ amount: 701 }).where(eq(ledgerEntries.id, entry.id)))).toMatch(
      /never changed/,
    );
    expect(await refusal(db.delete(ledgerEntries).where(eq(ledgerEntries.id, entry.id)))).toMatch(/never deleted/);
    expect(
      await refusal(
        db.update(ledgerTransfers).set({ description: "edited" }).where(eq(ledgerTransfers.id, transferId)),
      ),
    ).toMatch(/never changed/);
    expect(await refusal(db.delete(ledgerTransfers).where(eq(ledgerTransfers.id, transferId)))).toMatch(
      /never deleted/,
    );
    expect(
      await refusal(
        db.update(ledgerAccounts).set({ currency: "EUR" }).where(eq(ledgerAccounts.id, entry.ledgerAccountId)),
      ),
    ).toMatch(/never changes owner/);
    expect(await refusal(db.delete(ledgerAccounts).where(eq(ledgerAccounts.id, entry.ledgerAccountId)))).toMatch(
      /never deleted/,
    );
    // A customer balance below zero is refused by the table itself, whatever the code does.
    const gbp = await db.transaction((tx) => customerAccount(tx, customer, "GBP"));
    expect(await refusal(db.update(ledgerAccounts).set({ balance: -1 }).where(eq(ledgerAccounts.id, gbp.id)))).toMatch(
      /CHECK constraint/,
    );
    // An entry in another currency than its account's is refused.
    expect(
      await refusal(db.run(sql`INSERT INTO ledger_entries (transfer_id, ledger_account_id, currency, amount, created_at)
      VALUES (${transferId}, ${gbp.id}, 'EUR', 1, 0)`)),
    ).toMatch(/currency/);
    expect(await db.select().from(ledgerEntries).where(eq(ledgerEntries.id, entry.id))).toEqual([entry]);
    await expectSound();
  });
});

describe("checkLedger", () => {
  /** A database of its own, so the tampering stays there. */
  async function scratch(): Promise<{ db: Database; path: string; done: () => void }> {
    const dir = mkdtempSync(join(tmpdir(), "ledger-check-"));
    const path = join(dir, "portal.db");
    const scratchDb = await openMigratedDatabase({ url: `file:${path}` });
    const [account] = await scratchDb.insert(accounts).values({
      accountRef: "S1",
      type: "Business",
      name: "S",
      openedAt: new Date(),
    })
      .returning({ id: accounts.id });
    await creditReceipt(scratchDb, { accountId: account.id, currency: "GBP", amount: 10_000, reference: "r" });
    await convert(scratchDb, {
      accountId: account.id,
      sellCurrency: "GBP",
      sellAmount: 4_000,
      buyCurrency: "JPY",
      buyAmount: 7_000,
      feeAmount: 40,
      reference: "c",
    });
    return {
      db: scratchDb,
      path,
      done: () => {
        scratchDb.$client.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }

  test("finds a tampered balance", async () => {
    const s = await scratch();
    try {
      expect((await checkLedger(s.db)).ok).toBe(true);
      await s.db.run(
        sql`UPDATE ledger_accounts SET balance = balance + 1 WHERE kind = 'customer' AND currency = 'GBP'`,
      );
      const report = await checkLedger(s.db);
      expect(report.ok).toBe(false);
      expect(report.violations).toEqual([
        expect.stringMatching(
          /^ledger account \d+ \(account \d+, GBP balance\): stored balance 6001 but its entries sum to 6000$/,
        ),
        "GBP: the balances sum to 1, not 0",
      ]);
    } finally {
      s.done();
    }
  });

  test("finds an unbalanced transfer, a lone entry, an entry in the wrong currency and missing triggers", async () => {
    const s = await scratch();
    try {
      // Someone with raw SQL access: drops the currency trigger and writes entries behind the ledger's back.
      await s.db.run(sql`DROP TRIGGER ledger_entries_currency`);
      await s.db.run(
        sql`INSERT INTO ledger_transfers (kind, description, created_at) VALUES ('correction', 'by hand', 0)`,
      );
      const [{ id }] = await s.db.all<{ id: number }>(sql`SELECT max(id) AS id FROM ledger_transfers`);
      const [gbp] = await s.db.select().from(ledgerAccounts).where(eq(ledgerAccounts.currency, "GBP")).limit(1);
      await s.db.run(sql`INSERT INTO ledger_entries (transfer_id, ledger_account_id, currency, amount, created_at)
        VALUES (${id}, ${gbp.id}, 'EUR', 5, 0)`);
      const report = await checkLedger(s.db);
      expect(report.ok).toBe(false);
      const text = report.violations.join("\n");
      expect(text).toContain("missing trigger ledger_entries_currency");
      expect(text).toContain(`transfer ${id}: its EUR entries sum to 5, not 0`);
      expect(text).toContain(`transfer ${id}: 1 entry (a transfer has at least two)`);
      expect(text).toMatch(
        new RegExp(`entry \\d+ \\(transfer ${id}\\) is in EUR but its ledger account ${gbp.id} is in GBP`),
      );
      expect(text).toMatch(new RegExp(`ledger account ${gbp.id} .*stored balance -?\\d+ but its entries sum to`));
    } finally {
      s.done();
    }
  });

  test("deno task ledger:check prints the report and exits 0 when sound, 1 on a violation", async () => {
    const s = await scratch();
    const run = async () => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "scripts/ledger-check.ts", `file:${s.path}`],
        stdout: "piped",
        stderr: "piped",
      }).output();
      return { code: out.code, text: new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr) };
    };
    try {
      const sound = await run();
      expect(sound.text).toContain("2 transfers, 7 entries");
      expect(sound.text).toMatch(/GBP: .*customers 6000; house .*fee_income 40.*total 0/);
      expect(sound.text).toContain("OK: every invariant holds.");
      expect(sound.code).toBe(0);

      await s.db.run(
        sql`UPDATE ledger_accounts SET balance = balance - 1 WHERE purpose = 'fx_position' AND currency = 'JPY'`,
      );
      const broken = await run();
      expect(broken.text).toContain("2 violations:");
      expect(broken.text).toContain("JPY: the balances sum to -1, not 0");
      expect(broken.code).toBe(1);
    } finally {
      s.done();
    }
  }, 30_000);
});
