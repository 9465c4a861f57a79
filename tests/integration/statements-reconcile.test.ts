/**
 * Statements reconcile with the ledger (issue 10, decision 037): for random histories of receipts,
 * conversions with fees, payments held, released, sent with their fees and refunded, and receipts
 * reversed, over weeks, a statement of a random period shows, for every currency, opening + its
 * lines = closing = the ledger's balance at the closing moment (and the held part likewise), each
 * line's running balance is the one before plus its amount, and every fee is a line of its own.
 * The ledger's balance is the test's own model of every movement, and the stored balances at the end.
 */
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, expect, test, vi } from "vitest";
import { accounts } from "../../db/schema.ts";
import {
  balancesOf,
  convert,
  creditReceipt,
  holdPayment,
  type PaymentMoney,
  payoutPayment,
  refundPayment,
  releasePayment,
  reverseReceipt,
} from "../../server/ledger/movements.ts";
import { statementSections } from "../../server/statements/lines.ts";
import { testDatabase } from "../helpers/db.ts";

vi.setConfig({ testTimeout: 240_000 });

const db = await testDatabase();
const CURRENCIES = ["GBP", "EUR", "JPY"] as const;
type Currency = (typeof CURRENCIES)[number];
const START = Date.UTC(2026, 0, 1, 0, 0, 0);
const DAY = 24 * 60 * 60 * 1000;

type Step =
  | { type: "receipt"; currency: Currency; amount: number; wait: number; other: boolean }
  | { type: "reverse"; pick: number; wait: number }
  | { type: "convert"; sell: Currency; buy: Currency; share: number; feePermille: number; wait: number }
  | { type: "pay"; sell: Currency; buy: Currency; share: number; feePermille: number; wait: number }
  | { type: "release"; pick: number; wait: number }
  | { type: "send"; pick: number; wait: number }
  | { type: "refund"; pick: number; wait: number };

const currency = fc.constantFrom(...CURRENCIES);
// Up to four days between movements, to the millisecond (periods cut through them at random), or
// whole days: movements at midnight, on a period's first moment or just past its last.
const wait = fc.oneof(fc.integer({ min: 1, max: 4 * DAY }), fc.integer({ min: 0, max: 3 }).map((d) => d * DAY));
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    type: fc.constant("receipt" as const),
    currency,
    amount: fc.integer({ min: 1, max: 5_000_000 }),
    wait,
    other: fc.boolean(),
  }),
  fc.record({ type: fc.constant("reverse" as const), pick: fc.nat(), wait }),
  fc.record({
    type: fc.constant("convert" as const),
    sell: currency,
    buy: currency,
    share: fc.integer({ min: 1, max: 1000 }),
    feePermille: fc.integer({ min: 0, max: 50 }),
    wait,
  }),
  fc.record({
    type: fc.constant("pay" as const),
    sell: currency,
    buy: currency,
    share: fc.integer({ min: 1, max: 1000 }),
    feePermille: fc.integer({ min: 0, max: 50 }),
    wait,
  }),
  fc.record({ type: fc.constant("release" as const), pick: fc.nat(), wait }),
  fc.record({ type: fc.constant("send" as const), pick: fc.nat(), wait }),
  fc.record({ type: fc.constant("refund" as const), pick: fc.nat(), wait }),
);

/** The ledger as the test knows it: per currency, the balance (held included) and held after each movement. */
interface Point {
  at: number;
  total: number;
  held: number;
}

let accountSeq = 0;
let paymentSeq = 0;
let referenceSeq = 0;

beforeAll(() => {
  // The ledger stamps its movements with Date.now(): the test moves that clock between movements.
  vi.useFakeTimers({ toFake: ["Date"] });
});
afterEach(() => vi.setSystemTime(START));
afterAll(() => vi.useRealTimers());

async function newAccount(): Promise<number> {
  const n = ++accountSeq;
  const [row] = await db.insert(accounts).values({
    accountRef: `S${String(n).padStart(5, "0")}`,
    type: "Personal",
    name: `Statement customer ${n}`,
    openedAt: new Date(START),
  }).returning({ id: accounts.id });
  return row.id;
}

async function replay(accountId: number, other: number, steps: Step[]) {
  const series = new Map<Currency, Point[]>(CURRENCIES.map((c) => [c, [{ at: -Infinity, total: 0, held: 0 }]]));
  const last = (c: Currency) => series.get(c)!.at(-1)!;
  let now = START;
  const moved = (c: Currency, total: number, held: number) => {
    const before = last(c);
    series.get(c)!.push({ at: now, total: before.total + total, held: before.held + held });
  };
  const available = (c: Currency) => last(c).total - last(c).held;
  const receipts: { currency: Currency; amount: number; reference: string; reversed: boolean }[] = [];
  const held: PaymentMoney[] = [];
  const sent: PaymentMoney[] = [];
  let fees = 0;
  for (const s of steps) {
    now += s.wait;
    vi.setSystemTime(now);
    switch (s.type) {
      case "receipt": {
        const reference = `r${++referenceSeq}`;
        await creditReceipt(db, {
          accountId: s.other ? other : accountId,
          currency: s.currency,
          amount: s.amount,
          reference,
        });
        if (!s.other) {
          moved(s.currency, s.amount, 0);
          receipts.push({ currency: s.currency, amount: s.amount, reference, reversed: false });
        }
        break;
      }
      case "reverse": {
        const open = receipts.filter((r) => !r.reversed && available(r.currency) >= r.amount);
        const r = open[s.pick % Math.max(open.length, 1)];
        if (!r) break;
        await reverseReceipt(db, {
          accountId,
          currency: r.currency,
          amount: r.amount,
          reference: `${r.reference}-reversed`,
          description: "Sent to the wrong account",
        });
        r.reversed = true;
        moved(r.currency, -r.amount, 0);
        break;
      }
      case "convert": {
        const sellAmount = Math.floor((available(s.sell) * s.share) / 1000);
        if (s.sell === s.buy || sellAmount < 2) break;
        const fee = Math.min(Math.floor((sellAmount * s.feePermille) / 1000), sellAmount - 1);
        const buyAmount = Math.max(1, Math.floor((sellAmount - fee) * 1.3));
        await convert(db, {
          accountId,
          sellCurrency: s.sell,
          sellAmount,
          buyCurrency: s.buy,
          buyAmount,
          feeAmount: fee,
          reference: `c${++referenceSeq}`,
        });
        if (fee > 0) fees++;
        moved(s.sell, -sellAmount, 0);
        moved(s.buy, buyAmount, 0);
        break;
      }
      case "pay": {
        const sellAmount = Math.floor((available(s.sell) * s.share) / 1000);
        if (sellAmount < 2) break;
        const fee = Math.min(Math.floor((sellAmount * s.feePermille) / 1000), sellAmount - 1);
        const p: PaymentMoney = {
          paymentId: ++paymentSeq,
          accountId,
          sellCurrency: s.sell,
          sellAmount,
          buyCurrency: s.buy,
          buyAmount: s.sell === s.buy ? sellAmount - fee : Math.max(1, Math.floor((sellAmount - fee) * 0.8)),
          feeAmount: fee,
        };
        await holdPayment(db, p);
        held.push(p);
        moved(s.sell, 0, sellAmount);
        break;
      }
      case "release":
      case "send": {
        const p = held.splice(s.pick % Math.max(held.length, 1), 1)[0];
        if (!p) break;
        const c = p.sellCurrency as Currency;
        if (s.type === "release") {
          await releasePayment(db, p);
          moved(c, 0, -p.sellAmount);
        } else {
          await payoutPayment(db, p);
          if (p.feeAmount > 0) fees++;
          sent.push(p);
          moved(c, -p.sellAmount, -p.sellAmount);
        }
        break;
      }
      case "refund": {
        const p = sent.splice(s.pick % Math.max(sent.length, 1), 1)[0];
        if (!p) break;
        await refundPayment(db, p);
        if (p.feeAmount > 0) fees++;
        moved(p.sellCurrency as Currency, p.sellAmount, 0);
        break;
      }
    }
  }
  return { series, end: now, fees };
}

/** The model's balance just before `at` (what a statement opening at `at`, or closing at it, shows). */
function balanceBefore(points: Point[], at: number): Point {
  let found = points[0];
  for (const p of points) if (p.at < at) found = p;
  return found;
}

test("opening + movements = closing = the ledger's balance at that time, in every currency", async () => {
  let checked = 0;
  let linesSeen = 0;
  let movementsMade = 0;
  await fc.assert(
    fc.asyncProperty(
      // Money arrives first in every currency, then anything happens.
      fc.tuple(
        fc.array(
          fc.record({
            type: fc.constant("receipt" as const),
            currency,
            amount: fc.integer({ min: 1000, max: 5_000_000 }),
            wait,
            other: fc.constant(false),
          }),
          { minLength: 3, maxLength: 6 },
        ),
        fc.array(step, { minLength: 10, maxLength: 40, size: "max" }),
      ).map(([first, rest]): Step[] => [...first, ...rest]),
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      async (steps, a, b) => {
        const accountId = await newAccount();
        const other = await newAccount();
        const { series, end, fees } = await replay(accountId, other, steps);
        // A period of whole days somewhere over the history (and up to two days either side).
        const days = Math.ceil((end - START) / DAY) + 2;
        const [d1, d2] = [Math.floor(Math.min(a, b) * days) - 1, Math.floor(Math.max(a, b) * days)];
        const start = START + d1 * DAY;
        const close = START + (d2 + 1) * DAY;
        movementsMade += [...series.values()].reduce((n, points) => n + points.length - 1, 0);
        const sections = await statementSections(db, accountId, null, { start: new Date(start), end: new Date(close) });
        const byCurrency = new Map(sections.map((s) => [s.currency, s]));
        let feeLines = 0;
        for (const c of CURRENCIES) {
          const points = series.get(c)!;
          const opening = balanceBefore(points, start);
          const closing = balanceBefore(points, close);
          const section = byCurrency.get(c);
          const inPeriod = points.filter((p) => p.at >= start && p.at < close).length;
          if (!section) {
            // Left out only when there is nothing to show.
            expect({ opening: opening.total, moved: inPeriod }).toEqual({ opening: 0, moved: 0 });
            continue;
          }
          expect(section.opening).toBe(opening.total);
          expect(section.openingHeld).toBe(opening.held);
          let running = section.opening;
          let runningHeld = section.openingHeld;
          for (const line of section.lines) {
            running += line.amount;
            expect(line.balance).toBe(running);
            expect(line.at.getTime()).toBeGreaterThanOrEqual(start);
            expect(line.at.getTime()).toBeLessThan(close);
            runningHeld = line.held;
            if (line.kind === "fee") feeLines++;
          }
          expect(section.closing).toBe(running);
          expect(section.closing).toBe(closing.total);
          expect(runningHeld).toBe(section.closingHeld);
          expect(section.closingHeld).toBe(closing.held);
          linesSeen += section.lines.length;
        }
        // A statement over the whole history has a line for every fee charged or returned.
        if (start <= START && close > end) expect(feeLines).toBe(fees);
        // At the end of the history the model is the stored balances too.
        const stored = await balancesOf(db, accountId);
        for (const c of CURRENCIES) {
          const b = stored.find((x) => x.currency === c) ?? { available: 0, held: 0 };
          expect(b.available + b.held).toBe(series.get(c)!.at(-1)!.total);
          expect(b.held).toBe(series.get(c)!.at(-1)!.held);
        }
        checked++;
      },
    ),
    { numRuns: 40, seed: Number(process.env.STATEMENTS_SEED ?? 20261127) },
  );
  expect(checked).toBeGreaterThanOrEqual(40);
  // The histories were not all trivial.
  expect(movementsMade).toBeGreaterThan(300);
  expect(linesSeen).toBeGreaterThan(50);
});
