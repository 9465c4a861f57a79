/**
 * The daily income summary (decision 070): the commissions and the profit report by partner read a
 * customer account's income of a day that is over from `income_days`, filled by the first read
 * that needs the day, and read the movements themselves on a day not over yet, on a day the
 * account's owner changed partner or their partner's share changed, and for a refund. Every
 * figure is what reading every movement gives (server/profit/report.ts `incomeEntries`, each
 * movement at the partner and share of its attributed time).
 *
 * The movements are the ledger's own (server/ledger/movements.ts) on a migrated database of the
 * test's own, with the quote, conversion and payment rows beside them written directly, as in
 * profit-reconcile.test.ts.
 */
import { sql } from "drizzle-orm";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from "vitest";
import { type Database, openMigratedDatabase } from "../../db/client.ts";
import { rowsOf, run } from "../../db/sql.ts";
import { accountMembers, accounts, users } from "../../db/schema.ts";
import { partners, partnerShares } from "../../db/schema-partners.ts";
import { convert, creditReceipt, holdPayment, payoutPayment, refundPayment } from "../../server/ledger/movements.ts";
import { markupOf } from "../../server/money/quote.ts";
import { partnerHistories } from "../../server/partners/assignments.ts";
import { attributedIncome } from "../../server/partners/income.ts";
import { CLOSED_AFTER } from "../../server/partners/income-days.ts";
import { setCustomerPartner } from "../../server/partners/partners.ts";
import { commissionFigures, commissionOf } from "../../server/partners/referrals.ts";
import { incomeEntries, NO_PARTNER, profitFigures } from "../../server/profit/report.ts";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** Day 0, a Monday. */
const START = Date.UTC(2026, 2, 2);
const dayText = (day: number) => new Date(START + day * DAY).toISOString().slice(0, 10);

let db: Database;
let dir: string;
let now = START;
let admin: number;
let owner: number;
let accountId: number;
let acme: number;
let beta: number;
let seq = 0;

// The ledger dates its movements by Date.now: the test's clock (mocks are restored after each test).
const clock = () => vi.spyOn(Date, "now").mockImplementation(() => now);
beforeEach(clock);

beforeAll(async () => {
  clock();
  dir = mkdtempSync(join(tmpdir(), "income-days-"));
  db = await openMigratedDatabase({ url: `file:${join(dir, "portal.db")}` });
  [{ id: admin }] = await db.insert(users).values({ username: "admin@example.com", level: "Admin" })
    .returning({ id: users.id });
  [{ id: accountId }] = await db.insert(accounts).values({
    accountRef: "P1",
    type: "Personal",
    name: "Dan",
    openedAt: new Date(START),
  }).returning({ id: accounts.id });
  [{ id: owner }] = await db.insert(users).values({ username: "dan@example.com", createdAt: new Date(START) })
    .returning({ id: users.id });
  await db.insert(accountMembers).values({ accountId, userId: owner, role: "owner", createdAt: new Date(START) });
  const partner = async (name: string, shareBps: number) =>
    (await db.insert(partners).values({
      name,
      code: name.toUpperCase(),
      shareBps,
      createdAt: new Date(START),
      createdBy: admin,
      updatedAt: new Date(START),
    }).returning({ id: partners.id }))[0].id;
  acme = await partner("Acme", 1000);
  beta = await partner("Beta", 2000);
  await run(
    db,
    `INSERT INTO recipients (id, account_id, name, type, currency, country, details, details_changed_at, created_by,
      created_at, updated_at) VALUES (1, ?, 'R', 'person', 'EUR', 'FR', '{}', ?, ?, ?, ?)`,
    [accountId, START, admin, START, START],
  );
});

afterAll(() => {
  vi.restoreAllMocks();
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A conversion of GBP to EUR at `at` with a fee, at the mid rate `mid` less 1 %. */
async function conversion(at: number, converted: number, fee: number, mid = "1.150000", bought?: number) {
  now = at;
  const id = ++seq;
  const buy = bought ?? Math.floor(converted * Number(mid) * 0.99);
  await creditReceipt(db, { accountId, currency: "GBP", amount: converted + fee, reference: `r${id}` });
  const t = await convert(db, {
    accountId,
    sellCurrency: "GBP",
    buyCurrency: "EUR",
    sellAmount: converted + fee,
    buyAmount: buy,
    feeAmount: fee,
    reference: `c${id}`,
  });
  await db.run(sql`INSERT INTO quotes (id, account_id, user_id, sell_currency, buy_currency, sell_minor, buy_minor,
      fee_minor, mid_rate, rate, bps, expires_at, used_at, created_at)
    VALUES (${`q${id}`}, ${accountId}, ${admin}, 'GBP', 'EUR', ${converted + fee}, ${buy}, ${fee}, ${mid}, ${mid},
      100, ${at}, ${at}, ${at})`);
  await db.run(sql`INSERT INTO conversions (account_id, quote_id, transfer_id, sell_currency, sell_minor, buy_currency,
      buy_minor, fee_minor, rate, created_at)
    VALUES (${accountId}, ${`q${id}`}, ${t.transferId}, 'GBP', ${
    converted + fee
  }, 'EUR', ${buy}, ${fee}, ${mid}, ${at})`);
  return { fee, markup: markupOf(converted, buy, mid, "GBP", "EUR") };
}

/** A payment of GBP to EUR paid out at `at`, refunded at `refundAt`. */
async function refundedPayment(at: number, refundAt: number, converted: number, fee: number) {
  now = at;
  const id = ++seq;
  const mid = "1.150000";
  const buy = Math.floor(converted * 1.15 * 0.99);
  const money = {
    paymentId: id,
    accountId,
    sellCurrency: "GBP",
    sellAmount: converted + fee,
    buyCurrency: "EUR",
    buyAmount: buy,
    feeAmount: fee,
  };
  await creditReceipt(db, { accountId, currency: "GBP", amount: converted + fee, reference: `r${id}` });
  const hold = await holdPayment(db, money);
  await db.run(sql`INSERT INTO payment_quotes (id, account_id, user_id, recipient_id, sell_currency, buy_currency,
      sell_minor, buy_minor, fee_minor, mid_rate, rate, bps, priority, rail, expected_arrival, expires_at, created_at)
    VALUES (${`pq${id}`}, ${accountId}, ${admin}, 1, 'GBP', 'EUR', ${converted + fee}, ${buy}, ${fee}, ${mid}, ${mid},
      100, 0, 'swift', ${at}, ${at}, ${at})`);
  await db.run(sql`INSERT INTO payments (id, account_id, recipient_id, recipient, quote_id, sell_currency, sell_minor,
      buy_currency, buy_minor, fee_minor, mid_rate, rate, bps, priority, rail, reference, status, expected_arrival,
      created_by, created_at, updated_at, hold_transfer_id)
    VALUES (${id}, ${accountId}, 1, '{}', ${`pq${id}`}, 'GBP', ${
    converted + fee
  }, 'EUR', ${buy}, ${fee}, ${mid}, ${mid},
      100, 0, 'swift', 'ref', 'submitted', ${at}, ${admin}, ${at}, ${at}, ${hold.transferId})`);
  await payoutPayment(db, money);
  return async () => {
    now = refundAt;
    await refundPayment(db, money);
  };
}

const moveTo = (partnerId: number | null, at: number) => setCustomerPartner(db, owner, partnerId, admin, new Date(at));

/**
 * What reading every movement gives (the figures before the summary): each movement of the period
 * at the partner of its attributed time and that partner's share then.
 */
async function byMovement(from: number, to: number) {
  const { fees, markups } = await incomeEntries(db, START + from * DAY, START + (to + 1) * DAY);
  const partnerAt = await partnerHistories(db, [accountId]);
  const shares = await rowsOf<{ partner_id: number; share_bps: number; starts_at: number }>(
    db,
    "SELECT partner_id, share_bps, starts_at FROM partner_shares ORDER BY starts_at, id",
  );
  const current = new Map([[acme, 1000], [beta, 2000]]);
  const shareAt = (p: number, at: number) =>
    shares.filter((s) => s.partner_id === p && Number(s.starts_at) <= at).at(-1)?.share_bps ??
      shares.find((s) => s.partner_id === p)?.share_bps ?? current.get(p)!;
  const sums = new Map<string, { income: number; share: number; partner: number }>();
  for (const e of [...fees, ...markups]) {
    const p = partnerAt.at(e.account_id, e.attributed_at);
    if (p === null) continue;
    const share = shareAt(p, e.attributed_at);
    const key = `${p}:${e.currency}:${share}`;
    const sum = sums.get(key) ?? { income: 0, share, partner: p };
    sum.income += e.amount;
    sums.set(key, sum);
  }
  return [...sums.entries()].map(([key, s]) => ({ key, income: s.income, commission: commissionOf(s.income, s.share) }))
    .sort((a, b) => a.key.localeCompare(b.key));
}

async function commissions(from: number, to: number) {
  return (await commissionFigures(db, { from: dayText(from), to: dayText(to) }))
    .map((c) => ({ key: `${c.partner_id}:${c.currency}:${c.share_bps}`, income: c.income, commission: c.commission }))
    .sort((a, b) => a.key.localeCompare(b.key));
}

const summary = async () =>
  (await rowsOf<Record<string, number>>(
    db,
    `SELECT day, account_id, currency, fees, markup, entries, irregular FROM income_days
      WHERE fees <> 0 OR markup <> 0 OR entries <> 0 OR irregular <> 0 ORDER BY day, account_id, currency`,
  )).map((r) => ({ ...r }));

describe("a customer moved within a day, with income on both sides of the move", () => {
  const earned = { acme: 0, beta: 0 };
  beforeAll(async () => {
    clock();
    // Acme's from the sign-up; on day 1 at noon, Beta's; on day 3 at noon, nobody's.
    await moveTo(acme, START);
    for (const [day, hour] of [[0, 9], [1, 9], [1, 11]]) {
      const c = await conversion(START + day * DAY + hour * HOUR, 100_000 + day * 1000 + hour, 150 + hour);
      earned.acme += c.fee + c.markup;
    }
    // A payment sent for Acme on day 1 in the morning, refunded on day 2 (Beta's by then).
    const refund = await refundedPayment(START + DAY + 10 * HOUR, START + 2 * DAY + 9 * HOUR, 50_000, 300);
    await moveTo(beta, START + DAY + 12 * HOUR);
    for (const [day, hour] of [[1, 14], [1, 18], [2, 10], [3, 8]]) {
      const c = await conversion(START + day * DAY + hour * HOUR, 200_000 + day * 1000 + hour, 250 + hour);
      earned.beta += c.fee + c.markup;
    }
    await refund();
    // Beta's share changes on day 3 at 10:00; the customer leaves Beta at noon: income on both sides.
    await db.insert(partnerShares).values([
      { partnerId: beta, shareBps: 2000, startsAt: new Date(START), createdBy: admin },
      { partnerId: beta, shareBps: 2500, startsAt: new Date(START + 3 * DAY + 10 * HOUR), createdBy: admin },
    ]);
    await conversion(START + 3 * DAY + 11 * HOUR, 300_000, 500);
    await moveTo(null, START + 3 * DAY + 12 * HOUR);
    await conversion(START + 3 * DAY + 13 * HOUR, 300_000, 500);
    // Beta's again from midnight of day 4 (no change within the day), whose share changes at noon.
    await moveTo(beta, START + 4 * DAY);
    await conversion(START + 4 * DAY + 9 * HOUR, 400_000, 700);
    await db.insert(partnerShares).values(
      { partnerId: beta, shareBps: 3000, startsAt: new Date(START + 4 * DAY + 12 * HOUR), createdBy: admin },
    );
    await conversion(START + 4 * DAY + 15 * HOUR, 400_000, 700);
    now = START + 5 * DAY;
  });

  test("the commissions are what reading every movement gives, for every period", async () => {
    for (let from = 0; from <= 4; from++) {
      for (let to = from; to <= 4; to++) {
        expect(await commissions(from, to), `days ${from}-${to}`).toEqual(await byMovement(from, to));
      }
    }
    // Day 1: Acme's until noon, Beta's after, each at their share; the refund of day 2 is Acme's.
    const day1 = await commissions(1, 1);
    expect(day1.map((c) => c.key)).toEqual([`${acme}:GBP:1000`, `${beta}:GBP:2000`]);
    const day2 = await commissions(2, 2);
    expect(day2.find((c) => c.key.startsWith(`${acme}:`))!.income).toBeLessThan(0);
    // Day 3: Beta's at 20 % until 10:00, at 25 % from then, nobody's from noon.
    expect((await commissions(3, 3)).map((c) => c.key)).toEqual([`${beta}:GBP:2000`, `${beta}:GBP:2500`]);
    // Day 4: Beta's all day, at 25 % until noon and 30 % after.
    expect((await commissions(4, 4)).map((c) => c.key)).toEqual([`${beta}:GBP:2500`, `${beta}:GBP:3000`]);
    expect(earned.acme + earned.beta).toBeGreaterThan(0);
  });

  test("a day without a change is one sum of the summary; a day with one, a part per movement", async () => {
    const parts = await attributedIncome(db, START, START + 5 * DAY, { shares: true, period: "day" });
    const dayOf = (at: number) => Math.floor((at - START) / DAY);
    // Day 0: no change (the assignment from the sign-up starts at its first instant): one part.
    expect(parts.filter((p) => dayOf(p.at) === 0)).toEqual([
      expect.objectContaining({ at: START, partner_id: acme, share_bps: 1000 }),
    ]);
    // Day 1: the move at noon; each of its four movements with fees and markup, and the payout.
    expect(parts.filter((p) => dayOf(p.at) === 1).every((p) => p.at % DAY !== 0)).toBe(true);
    expect(new Set(parts.filter((p) => dayOf(p.at) === 1).map((p) => p.partner_id))).toEqual(new Set([acme, beta]));
  });

  test("the profit report by partner adds up to the report by currency, day by day", async () => {
    for (const group of ["day", "week", "month"] as const) {
      const q = { from: dayText(0), to: dayText(4), group };
      const byPartner = await profitFigures(db, { ...q, by: "partner" });
      const byCurrency = await profitFigures(db, { ...q, by: "currency" });
      const total = (rows: typeof byPartner) =>
        [...Map.groupBy(rows, (r) => `${r.period}:${r.currency}`)].map(([k, rs]) => [
          k,
          rs.reduce((n, r) => n + r.fees, 0),
          rs.reduce((n, r) => n + r.markup, 0),
        ]);
      expect(total(byPartner)).toEqual(total(byCurrency));
      expect(new Set(byPartner.map((r) => r.partner))).toEqual(new Set(["Acme", "Beta", NO_PARTNER]));
    }
  });

  test("the summary is filled once, by the first read, whoever reads; filled again it is the same", async () => {
    const kept = await summary();
    expect(kept.length).toBeGreaterThan(0);
    const figures = await commissions(0, 4);
    // Read again: the days are filled, nothing is written twice.
    expect(await commissions(0, 4)).toEqual(figures);
    expect(await summary()).toEqual(kept);
    // From nothing, by two readers at once: each day's rows are written once.
    await db.$client.batch(["DELETE FROM income_days", "DELETE FROM income_days_filled"], "write");
    const [a, b] = await Promise.all([commissions(0, 4), commissions(0, 4)]);
    expect(a).toEqual(figures);
    expect(b).toEqual(figures);
    expect(await summary()).toEqual(kept);
    expect(await rowsOf(db, "SELECT day FROM income_days_filled ORDER BY day")).toEqual(
      // Day 4 is not over at its end (now): read movement by movement, not filled.
      [0, 1, 2, 3].map((d) => ({ day: START / DAY + d })),
    );
  });
});

describe("a markup too large for 64-bit integers", () => {
  test("is summed exact, as markupOf computes it", async () => {
    const day = 10;
    await moveTo(acme, START + day * DAY);
    // 9 × 10^13 cents bought at a mid rate of twelve decimals: 2 × bought × 10^12 is beyond 2^63.
    const mid = "1.123456789012";
    const c = await conversion(START + day * DAY + HOUR, 80_000_000_000_000, 999, mid, 89_000_000_000_000);
    now = START + (day + 1) * DAY + CLOSED_AFTER;
    const [figure] = await commissionFigures(db, { from: dayText(day), to: dayText(day) });
    expect({ fees: figure.fees, markup: figure.markup }).toEqual({ fees: c.fee, markup: c.markup });
    const [row] = await rowsOf<{ irregular: number; markup: number }>(
      db,
      "SELECT irregular, markup FROM income_days WHERE day = ? AND account_id = ?",
      [(START + day * DAY) / DAY, accountId],
    );
    expect(row).toEqual({ irregular: 0, markup: c.markup });
    expect(await commissions(day, day)).toEqual(await byMovement(day, day));
  });
});

describe("a day not over yet", () => {
  test("is read movement by movement, and summed once it ended more than an hour ago", async () => {
    const day = 20;
    await moveTo(acme, START + day * DAY);
    await conversion(START + day * DAY + 9 * HOUR, 500_000, 900);
    await moveTo(beta, START + day * DAY + 12 * HOUR);
    await conversion(START + day * DAY + 15 * HOUR, 600_000, 1100);
    const filled = async () =>
      (await rowsOf(db, "SELECT day FROM income_days_filled WHERE day = ?", [
        START / DAY + day,
      ])).length;
    const expected = await byMovement(day, day);
    expect(expected.map((c) => c.key)).toEqual([`${acme}:GBP:1000`, `${beta}:GBP:3000`]);
    // The same day, and just after its midnight: read live, not filled.
    for (const at of [START + day * DAY + 16 * HOUR, START + (day + 1) * DAY + CLOSED_AFTER - 1]) {
      now = at;
      expect(await commissions(day, day)).toEqual(expected);
      expect(await filled()).toBe(0);
    }
    // Over: filled by this read, with the same figures.
    now = START + (day + 1) * DAY + CLOSED_AFTER;
    expect(await commissions(day, day)).toEqual(expected);
    expect(await filled()).toBe(1);
    expect(await commissions(day, day)).toEqual(expected);
  });
});
