/**
 * The profit report reconciles with the ledger (issue 11, item 7; docs/decisions/047): for random
 * histories of conversions and payments with fees (payments in the same currency and in another,
 * some refunded days after they were sent), fee refunds by correction and receipts, spread over
 * twelve days, and a random period and grouping, per currency:
 *
 * - the report's fees equal the change of the house's fee_income account over the period, read
 *   from its stored balance before and after the period;
 * - the report's markup equals what the test's own model says the rate earned (converted − bought
 *   at the mid rate, rounded half up, computed here with big.js), and with it the house's
 *   fx_position account's change over the period is exactly markup + what was bought valued at
 *   mid − what was paid out in that currency;
 * - the same totals whatever the grouping (day, week, month) and split (currency, partner);
 * - by partner, each partner's fees and markup are those of the movements made while the account's
 *   owner was their customer: the customers move between two partners and none at random times
 *   (decision 062), and a move changes nothing before it; a payment's refund counts for the partner
 *   of the payout it reverses, in the period of the refund (decision 065), some of them with the
 *   customer moved between the payout and the refund.
 *
 * The movements are the ledger's own (server/ledger/movements.ts), on a migrated database; the
 * conversion, quote and payment rows beside them are written directly, holding what the report
 * reads from them (currencies and the mid rate) and what their constraints need.
 */
import Big from "big.js";
import fc from "fast-check";
import { sql } from "drizzle-orm";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test, vi } from "vitest";
import { type Database, openMigratedDatabase } from "../../db/client.ts";
import { accountMembers, accounts, users } from "../../db/schema.ts";
import { partners } from "../../db/schema-partners.ts";
import { ledgerAccounts } from "../../db/schema-money.ts";
import {
  convert,
  correction,
  creditReceipt,
  holdPayment,
  payoutPayment,
  refundPayment,
  settlePayment,
} from "../../server/ledger/movements.ts";
import { minorUnits } from "../../server/money/currencies.ts";
import { NO_PARTNER, type ProfitBy, profitFigures, type ProfitGroup } from "../../server/profit/report.ts";
import { setCustomerPartner } from "../../server/partners/partners.ts";
import { checkLedger } from "../../server/ledger/check.ts";

vi.setConfig({ testTimeout: 300_000 });

const CURRENCIES = ["GBP", "EUR", "JPY", "KWD"] as const;
type Currency = (typeof CURRENCIES)[number];
const DAY = 86_400_000;
/** Day 0 of every history: a Thursday, so that weeks and a month end fall inside the twelve days. */
const START = Date.UTC(2026, 0, 22);
const dayText = (day: number) => new Date(START + day * DAY).toISOString().slice(0, 10);

type Trade = {
  type: "conversion" | "payment";
  day: number;
  customer: number;
  sell: Currency;
  buyOffset: number;
  /** Minor units converted (after the fee). */
  converted: number;
  fee: number;
  /** Mid rate in millionths: 1 sell = mid buy (in major units). */
  midMicros: number;
  /** The markup in basis points. */
  bps: number;
  /** Same currency payments only: the buy currency is the sell currency. */
  sameCurrency: boolean;
  /** Days after its payout when a payment's payout fails and is refunded; null: it settles. */
  refundAfter: number | null;
  /**
   * A refunded payment's customer moved to partner 0 or 1, or to none (2), between its payout and
   * its refund; null: no such move.
   */
  moveBeforeRefund: number | null;
};
type FeeRefund = { type: "fee_refund"; day: number; customer: number; currency: Currency; permille: number };
type Step = Trade | FeeRefund;

const day = fc.integer({ min: 0, max: 11 });
const customer = fc.integer({ min: 0, max: 2 });
const currency = fc.constantFrom(...CURRENCIES);
const trade = (type: Trade["type"]) =>
  fc.record({
    type: fc.constant(type),
    day,
    customer,
    sell: currency,
    buyOffset: fc.integer({ min: 1, max: CURRENCIES.length - 1 }),
    converted: fc.oneof(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 1_000_000_000 })),
    fee: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5_000 })),
    midMicros: fc.integer({ min: 1_000, max: 300_000_000 }),
    bps: fc.integer({ min: 0, max: 300 }),
    sameCurrency: type === "payment" ? fc.boolean() : fc.constant(false),
    refundAfter: type === "payment" ? fc.option(fc.integer({ min: 0, max: 4 })) : fc.constant(null),
    moveBeforeRefund: type === "payment" ? fc.option(fc.integer({ min: 0, max: 2 })) : fc.constant(null),
  }) as fc.Arbitrary<Trade>;
/** A customer's move to partner 0 or 1, or to none (2), on a day, after the step of its index. */
type Move = { day: number; customer: number; after: number; partner: number };
const move: fc.Arbitrary<Move> = fc.record({
  day,
  customer,
  after: fc.integer({ min: 0, max: 24 }),
  partner: fc.integer({ min: 0, max: 2 }),
});
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: trade("conversion") },
  { weight: 3, arbitrary: trade("payment") },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant("fee_refund" as const),
      day,
      customer,
      currency,
      permille: fc.integer({ min: 1, max: 1000 }),
    }),
  },
);

/** A decimal string of millionths ("1.234567"). */
const micros = (n: number) => new Big(n).div(1_000_000).toFixed(6);

/** What `bought` (buy minor units) is worth in sell minor units at `mid`, rounded half up. */
function atMid(bought: number, mid: string, sell: string, buy: string): number {
  const shift = minorUnits(buy) - minorUnits(sell);
  return Number(new Big(bought).div(new Big(mid).times(new Big(10).pow(shift))).round(0, Big.roundHalfUp).toFixed(0));
}

let now = START;
afterEach(() => vi.restoreAllMocks());

async function freshDatabase(): Promise<{ db: Database; close: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), "profit-reconcile-"));
  const db = await openMigratedDatabase({ url: `file:${join(dir, "portal.db")}` });
  return {
    db,
    close: () => {
      db.$client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The house's balances by `purpose:currency`, as stored. */
async function houseBalances(db: Database): Promise<Map<string, number>> {
  const rows = await db.select().from(ledgerAccounts).where(sql`kind = 'house'`);
  return new Map(rows.map((r) => [`${r.purpose}:${r.currency}`, r.balance]));
}

test("the report's fees and markup for any period equal the change of the house accounts", async () => {
  vi.spyOn(Date, "now").mockImplementation(() => now);
  await fc.assert(
    fc.asyncProperty(
      fc.array(step, { minLength: 1, maxLength: 25 }),
      day,
      fc.integer({ min: 0, max: 11 }),
      fc.constantFrom<ProfitGroup>("day", "week", "month"),
      fc.array(move, { maxLength: 6 }),
      async (steps, first, length, group, randomMoves) => {
        const from = first;
        const to = Math.min(11, first + length);
        // The moves between a payout and its refund: right after the payout (step i at i * 1000 ms).
        const moves = [
          ...randomMoves,
          ...steps.flatMap((s, i): Move[] =>
            s.type === "payment" && s.refundAfter !== null && s.moveBeforeRefund !== null
              ? [{ day: s.day, customer: s.customer, after: i, partner: s.moveBeforeRefund }]
              : []
          ),
        ];
        const { db, close } = await freshDatabase();
        try {
          const customers: number[] = [];
          for (let i = 0; i < 3; i++) {
            const [row] = await db.insert(accounts).values({
              accountRef: `P${i}`,
              type: "Personal",
              name: `P${i}`,
              openedAt: new Date(START),
            }).returning({ id: accounts.id });
            customers.push(row.id);
          }
          const [admin] = await db.insert(users).values({ username: "admin@example.com", level: "Admin" })
            .returning({ id: users.id });
          // Each account's owner, a customer since START, and the two partners they move between.
          const owners: number[] = [];
          for (const [i, accountId] of customers.entries()) {
            const [owner] = await db.insert(users).values({ username: `p${i}@example.com`, createdAt: new Date(START) })
              .returning({ id: users.id });
            await db.insert(accountMembers).values({
              accountId,
              userId: owner.id,
              role: "owner",
              createdAt: new Date(START),
            });
            owners.push(owner.id);
          }
          const partnerIds: number[] = [];
          for (const name of ["Partner A", "Partner B"]) {
            const [p] = await db.insert(partners).values({
              name,
              code: name.replace(" ", "").toUpperCase(),
              shareBps: 1000,
              createdAt: new Date(START),
              createdBy: admin.id,
              updatedAt: new Date(START),
            }).returning({ id: partners.id });
            partnerIds.push(p.id);
          }
          const names = ["Partner A", "Partner B", NO_PARTNER];
          // Between the steps' times (i * 1000 ms into the day, a settlement 500 after): never at one.
          const moveAt = (m: Move, j: number) => START + m.day * DAY + m.after * 1000 + 250 + j;
          /** The model's partner (an index of names) of a customer at a time: the last move by then. */
          const partnerAt = (c: number, at: number) => {
            let found = 2;
            let since = -Infinity;
            moves.forEach((m, j) => {
              if (m.customer === c && moveAt(m, j) <= at && moveAt(m, j) >= since) {
                found = m.partner;
                since = moveAt(m, j);
              }
            });
            return found;
          };
          /** The model, by partner: fees and markup per `partner:currency` over the period. */
          const byPartner = new Map<string, number>();
          // One recipient per customer, for the payment rows.
          for (const accountId of customers) {
            await db.run(sql`INSERT INTO recipients (id, account_id, name, type, currency, country, details,
                details_changed_at, created_by, created_at, updated_at)
              VALUES (${accountId}, ${accountId}, 'R', 'person', 'EUR', 'FR', '{}', ${START}, ${admin.id}, ${START}, ${START})`);
          }

          // Every movement at its time; a payment's refund is an event of its own, days later.
          type Event = { at: number; run: () => Promise<void> };
          const events: Event[] = moves.map((m, j) => ({
            at: moveAt(m, j),
            run: async () => {
              const partnerId = m.partner === 2 ? null : partnerIds[m.partner];
              await setCustomerPartner(db, owners[m.customer], partnerId, admin.id, new Date(moveAt(m, j)));
            },
          }));
          /** The model, over the period only: markup and (bought at mid − paid out) per currency. */
          const markup = new Map<string, number>();
          const positionOther = new Map<string, number>();
          const bump = (m: Map<string, number>, k: string, n: number) => m.set(k, (m.get(k) ?? 0) + n);
          const inPeriod = (at: number) => at >= START + from * DAY && at < START + (to + 1) * DAY;
          let seq = 0;
          /** Fees of payments sent whose refund is still to come, by currency, as the history runs. */
          const owedFees = new Map<string, number>();
          steps.forEach((s, i) => {
            const at = START + s.day * DAY + i * 1000;
            const accountId = customers[s.customer];
            if (s.type === "fee_refund") {
              events.push({
                at,
                run: async () => {
                  // Never the fees of payments still to be refunded: their refund takes them back.
                  const fees = ((await houseBalances(db)).get(`fee_income:${s.currency}`) ?? 0) -
                    (owedFees.get(s.currency) ?? 0);
                  const amount = Math.floor((fees * s.permille) / 1000);
                  if (amount <= 0) return;
                  if (inPeriod(at)) bump(byPartner, `fees:${names[partnerAt(s.customer, at)]}:${s.currency}`, -amount);
                  const [feeAccount] = await db.select().from(ledgerAccounts)
                    .where(sql`kind = 'house' AND purpose = 'fee_income' AND currency = ${s.currency}`);
                  // A receipt first, so that the customer has a balance in the currency to receive it.
                  await creditReceipt(db, { accountId, currency: s.currency, amount: 1, reference: `r${++seq}` });
                  const [target] = await db.select().from(ledgerAccounts)
                    .where(
                      sql`kind = 'customer' AND account_id = ${accountId} AND currency = ${s.currency} AND purpose = 'balance'`,
                    );
                  await correction(db, {
                    description: "Fee given back",
                    createdBy: admin.id,
                    entries: [{ ledgerAccountId: feeAccount.id, amount: -amount }, {
                      ledgerAccountId: target.id,
                      amount,
                    }],
                  });
                },
              });
              return;
            }
            const sell = s.sell;
            const buy = s.sameCurrency
              ? sell
              : CURRENCIES[(CURRENCIES.indexOf(sell) + s.buyOffset) % CURRENCIES.length];
            const mid = micros(s.midMicros);
            const rate = new Big(mid).times(1 - s.bps / 10_000);
            const shift = minorUnits(buy) - minorUnits(sell);
            const bought = s.sameCurrency ? s.converted : Number(
              new Big(s.converted).times(rate).times(new Big(10).pow(shift)).round(0, Big.roundDown).toFixed(0),
            );
            if (bought <= 0 || bought > 1e14) return;
            const sellAmount = s.converted + s.fee;
            const id = ++seq;
            const fx = !s.sameCurrency;
            // In the period of `at`, for the partner at `attributedAt` (a refund: its payout's time).
            const book = (at: number, sign: 1 | -1, attributedAt = at) => {
              if (!inPeriod(at)) return;
              const partner = names[partnerAt(s.customer, attributedAt)];
              bump(byPartner, `fees:${partner}:${sell}`, sign * s.fee);
              if (!fx) return;
              bump(byPartner, `markup:${partner}:${sell}`, sign * (s.converted - atMid(bought, mid, sell, buy)));
              bump(markup, sell, sign * (s.converted - atMid(bought, mid, sell, buy)));
              bump(positionOther, sell, sign * atMid(bought, mid, sell, buy));
              bump(positionOther, buy, -sign * bought);
            };
            if (s.type === "conversion") {
              events.push({
                at,
                run: async () => {
                  await creditReceipt(db, { accountId, currency: sell, amount: sellAmount, reference: `r${id}` });
                  const t = await convert(db, {
                    accountId,
                    sellCurrency: sell,
                    buyCurrency: buy,
                    sellAmount,
                    buyAmount: bought,
                    feeAmount: s.fee,
                    reference: `c${id}`,
                  });
                  await db.run(sql`INSERT INTO quotes (id, account_id, user_id, sell_currency, buy_currency, sell_minor,
                      buy_minor, fee_minor, mid_rate, rate, bps, expires_at, used_at, created_at)
                    VALUES (${`q${id}`}, ${accountId}, ${admin.id}, ${sell}, ${buy}, ${sellAmount}, ${bought}, ${s.fee},
                      ${mid}, ${rate.toFixed(6)}, ${s.bps}, ${at}, ${at}, ${at})`);
                  await db.run(
                    sql`INSERT INTO conversions (account_id, quote_id, transfer_id, sell_currency, sell_minor,
                      buy_currency, buy_minor, fee_minor, rate, created_at)
                    VALUES (${accountId}, ${`q${id}`}, ${t.transferId}, ${sell}, ${sellAmount}, ${buy}, ${bought},
                      ${s.fee}, ${rate.toFixed(6)}, ${at})`,
                  );
                },
              });
              book(at, 1);
              return;
            }
            const money = {
              paymentId: id,
              accountId,
              sellCurrency: sell,
              sellAmount,
              buyCurrency: buy,
              buyAmount: bought,
              feeAmount: s.fee,
            };
            events.push({
              at,
              run: async () => {
                await creditReceipt(db, { accountId, currency: sell, amount: sellAmount, reference: `r${id}` });
                const hold = await holdPayment(db, money);
                await db.run(sql`INSERT INTO payment_quotes (id, account_id, user_id, recipient_id, sell_currency,
                    buy_currency, sell_minor, buy_minor, fee_minor, mid_rate, rate, bps, priority, rail,
                    expected_arrival, expires_at, created_at)
                  VALUES (${`pq${id}`}, ${accountId}, ${admin.id}, ${accountId}, ${sell}, ${buy}, ${sellAmount}, ${bought},
                    ${s.fee}, ${mid}, ${rate.toFixed(6)}, ${s.bps}, 0, 'swift', ${at}, ${at}, ${at})`);
                await db.run(sql`INSERT INTO payments (id, account_id, recipient_id, recipient, quote_id, sell_currency,
                    sell_minor, buy_currency, buy_minor, fee_minor, mid_rate, rate, bps, priority, rail, reference,
                    status, expected_arrival, created_by, created_at, updated_at, hold_transfer_id)
                  VALUES (${id}, ${accountId}, ${accountId}, '{}', ${`pq${id}`}, ${sell}, ${sellAmount}, ${buy}, ${bought}, ${s.fee},
                    ${mid}, ${rate.toFixed(6)}, ${s.bps}, 0, 'swift', 'ref', 'submitted', ${at}, ${admin.id}, ${at},
                    ${at}, ${hold.transferId})`);
                await payoutPayment(db, money);
                if (s.refundAfter !== null) bump(owedFees, sell, s.fee);
              },
            });
            book(at, 1);
            if (s.refundAfter === null) {
              events.push({
                at: at + 500,
                run: async () => {
                  await settlePayment(db, money);
                  await db.run(sql`UPDATE payments SET status = 'completed' WHERE id = ${id}`);
                },
              });
            } else {
              const refundAt = at + s.refundAfter * DAY + 500;
              events.push({
                at: refundAt,
                run: async () => {
                  await refundPayment(db, money);
                  bump(owedFees, sell, -s.fee);
                  await db.run(sql`UPDATE payments SET status = 'failed' WHERE id = ${id}`);
                },
              });
              book(refundAt, -1, at);
            }
          });
          events.sort((a, b) => a.at - b.at);

          // The house's balances as stored when the period starts and when it ends.
          let before: Map<string, number> | null = null;
          let after: Map<string, number> | null = null;
          for (const e of events) {
            if (!before && e.at >= START + from * DAY) before = await houseBalances(db);
            if (!after && e.at >= START + (to + 1) * DAY) after = await houseBalances(db);
            now = e.at;
            await e.run();
          }
          before ??= await houseBalances(db);
          after ??= await houseBalances(db);
          expect((await checkLedger(db)).violations).toEqual([]);
          const query = { from: dayText(from), to: dayText(to), group };
          const totals = async (by: ProfitBy) => {
            const sums = new Map<string, { markup: number; fees: number }>();
            for (const r of await profitFigures(db, { ...query, by })) {
              const s = sums.get(r.currency) ?? { markup: 0, fees: 0 };
              s.markup += r.markup;
              s.fees += r.fees;
              sums.set(r.currency, s);
              if (by === "partner") {
                got.set(`fees:${r.partner}:${r.currency}`, (got.get(`fees:${r.partner}:${r.currency}`) ?? 0) + r.fees);
                const key = `markup:${r.partner}:${r.currency}`;
                got.set(key, (got.get(key) ?? 0) + r.markup);
              } else expect(r.partner).toBeNull();
            }
            return sums;
          };
          const got = new Map<string, number>();
          const report = await totals("currency");
          expect(await totals("partner")).toEqual(report);
          const nonZero = (m: Map<string, number>) => new Map([...m].filter(([, n]) => n !== 0));
          expect(nonZero(got), "by partner").toEqual(nonZero(byPartner));
          // The daily summary (decision 070): the days of the period that were over were summed when
          // first read, the others read movement by movement. Once every day is over, the same
          // figures from the summary, filled by two readers at once; and filled again from nothing.
          const byPartnerFigures = await profitFigures(db, { ...query, by: "partner" });
          now = Math.max(now, START + (to + 1) * DAY + 2 * 3_600_000);
          const [first, second] = await Promise.all([
            profitFigures(db, { ...query, by: "partner" }),
            profitFigures(db, { ...query, by: "partner" }),
          ]);
          expect(first).toEqual(byPartnerFigures);
          expect(second).toEqual(byPartnerFigures);
          const summary = () =>
            db.$client.execute("SELECT * FROM income_days ORDER BY day, account_id, currency")
              .then((r) => JSON.stringify(r.rows));
          const kept = await summary();
          await db.$client.batch(["DELETE FROM income_days", "DELETE FROM income_days_filled"], "write");
          expect(await profitFigures(db, { ...query, by: "partner" })).toEqual(byPartnerFigures);
          expect(await summary(), "income_days").toBe(kept);
          for (const c of CURRENCIES) {
            const change = (purpose: string) =>
              (after!.get(`${purpose}:${c}`) ?? 0) - (before!.get(`${purpose}:${c}`) ?? 0);
            const got = report.get(c) ?? { markup: 0, fees: 0 };
            expect(got.fees, `fees in ${c}`).toBe(change("fee_income"));
            expect(got.markup, `markup in ${c}`).toBe(markup.get(c) ?? 0);
            expect(got.markup + (positionOther.get(c) ?? 0), `fx_position in ${c}`).toBe(change("fx_position"));
          }
        } finally {
          close();
        }
      },
    ),
    {
      numRuns: 40,
      // Always among the runs: customer 0 earns the house a conversion and a payment on day 2, moves
      // from nobody's to partner B between them and from B to A after the second, on that day: the
      // daily summary cannot split that day (decision 070), and the figures still give each
      // movement to the partner of its time, whether the day is summed or read live.
      examples: [[
        [
          { ...EXAMPLE_TRADE, type: "conversion" },
          { ...EXAMPLE_TRADE, type: "payment", sell: "EUR", refundAfter: 1, moveBeforeRefund: 2 },
          { ...EXAMPLE_TRADE, type: "conversion", day: 3 },
        ],
        0,
        11,
        "week",
        [{ day: 2, customer: 0, after: 0, partner: 1 }, { day: 2, customer: 0, after: 1, partner: 0 }],
      ]],
    },
  );
});

const EXAMPLE_TRADE: Trade = {
  type: "conversion",
  day: 2,
  customer: 0,
  sell: "GBP",
  buyOffset: 1,
  converted: 123_456,
  fee: 250,
  midMicros: 1_170_000,
  bps: 120,
  sameCurrency: false,
  refundAfter: null,
  moveBeforeRefund: null,
};
