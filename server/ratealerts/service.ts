/**
 * The rate alerts calls' service (issue 10 part 3, decision 038): list, create, pause or resume,
 * and delete the alerts of an account, and the recent fired ones for the dashboard. Firing is
 * ./check.ts, run when rates change.
 */
import { and, count, desc, eq, isNull } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { columnList, fromColumns, rowsOf, type Tx } from "../../db/sql.ts";
import { rateAlerts } from "../../db/schema-ratealerts.ts";
import type { RateAlertAnswer, RateAlertList, RateAlertPayload } from "../../lib/contracts/ratealerts.ts";
import { RATE_ALERTS_PER_ACCOUNT } from "../../lib/ratealerts.ts";
import { Conflict, InvalidInput, NotFound } from "../errors.ts";
import { describe, isCurrency } from "../money/currencies.ts";
import type { RateTable } from "../money/rates.ts";
import { currentRates } from "../money/store.ts";
import { reached, watchedRate } from "./rate.ts";

const NO_SUCH_ALERT = "There is no such rate alert.";

type Row = typeof rateAlerts.$inferSelect;

function answerOf(row: Row, table: RateTable): RateAlertAnswer {
  return {
    id: row.id,
    sell_currency: row.sellCurrency,
    buy_currency: row.buyCurrency,
    target_rate: row.targetRate,
    direction: row.direction,
    paused: row.paused,
    created_at: row.createdAt.toISOString(),
    current_rate: watchedRate(table, row.sellCurrency, row.buyCurrency),
    fired_at: row.firedAt?.toISOString() ?? null,
    fired_rate: row.firedRate,
  };
}

async function alertOf(db: Database | Tx, accountId: number, id: number): Promise<Row> {
  const [row] = await db.select().from(rateAlerts).where(
    and(eq(rateAlerts.id, id), eq(rateAlerts.accountId, accountId)),
  );
  if (!row) throw new NotFound(NO_SUCH_ALERT);
  return row;
}

/** The account's alerts, newest first, each with its pair's mid-market rate now. */
export async function listRateAlerts(db: Database, accountId: number): Promise<RateAlertList> {
  const [rows, table] = await Promise.all([
    db.select().from(rateAlerts).where(eq(rateAlerts.accountId, accountId)).orderBy(desc(rateAlerts.id)),
    currentRates(db),
  ]);
  return { items: rows.map((row) => answerOf(row, table)), limit: RATE_ALERTS_PER_ACCOUNT, rates_as_of: table.as_of };
}

/** Why an alert is refused, set or resumed, when the rate is already at or past its target. */
function alreadyReached(sell: string, buy: string, rate: string, target: string, direction: "above" | "below") {
  return `The rate is already 1 ${sell} = ${rate} ${buy}, ${direction === "above" ? "at or above" : "at or below"} ` +
    `${target}: choose a target the rate has not reached.`;
}

/**
 * Sets an alert. Refused (422 naming the field): a currency we do not support, the same currency
 * twice, a target the rate is already at or past (it would fire at the next rate change for
 * nothing the customer waited for), the same alert again while the person's first one still
 * watches or is paused (two would tell them twice of one crossing, and take two of the account's
 * places; another user of the account may set it, each being told of their own), and the alert
 * beyond RATE_ALERTS_PER_ACCOUNT.
 */
export async function createRateAlert(
  db: Database,
  accountId: number,
  userId: number,
  payload: RateAlertPayload,
  now: Date,
): Promise<RateAlertAnswer> {
  const { sell_currency: sell, buy_currency: buy, target_rate: target, direction } = payload;
  if (!isCurrency(sell)) throw new InvalidInput(`${describe(sell)} is not a currency we support.`, "sell_currency");
  if (!isCurrency(buy)) throw new InvalidInput(`${describe(buy)} is not a currency we support.`, "buy_currency");
  if (sell === buy) throw new InvalidInput("Choose two different currencies.", "buy_currency");
  return await db.transaction(async (tx) => {
    const [{ n }] = await tx.select({ n: count() }).from(rateAlerts).where(eq(rateAlerts.accountId, accountId));
    if (n >= RATE_ALERTS_PER_ACCOUNT) {
      throw new InvalidInput(
        `An account keeps at most ${RATE_ALERTS_PER_ACCOUNT} rate alerts: delete one to set another.`,
      );
    }
    // The target is normalised by the contract ("1.50" is "1.5"), as stored: equal text, equal target.
    const [same] = await tx.select({ paused: rateAlerts.paused }).from(rateAlerts).where(
      and(
        eq(rateAlerts.accountId, accountId),
        eq(rateAlerts.createdBy, userId),
        eq(rateAlerts.sellCurrency, sell),
        eq(rateAlerts.buyCurrency, buy),
        eq(rateAlerts.targetRate, target),
        eq(rateAlerts.direction, direction),
        isNull(rateAlerts.firedAt),
      ),
    ).limit(1);
    if (same) {
      throw new InvalidInput(
        `You already have this alert (1 ${sell} = ${target} ${buy}, ${
          direction === "above" ? "at or above" : "at or below"
        }): ${same.paused ? "it is paused, resume it instead" : "it is watching"}.`,
        "target_rate",
      );
    }
    const table = await currentRates(tx);
    const rate = watchedRate(table, sell, buy);
    if (rate === null) throw new InvalidInput(`There is no rate for ${sell} to ${buy} yet.`, "buy_currency");
    if (reached(rate, target, direction)) {
      throw new InvalidInput(alreadyReached(sell, buy, rate, target, direction), "target_rate");
    }
    const [row] = await tx.insert(rateAlerts).values({
      accountId,
      createdBy: userId,
      sellCurrency: sell,
      buyCurrency: buy,
      targetRate: target,
      direction,
      createdAt: now,
    }).returning();
    return answerOf(row, table);
  });
}

/**
 * Pauses or resumes an alert that has not fired (a fired alert is finished: 409). Resuming a paused
 * alert whose target the rate has already reached is refused as setting it is (422, the same words,
 * naming `paused`), and it stays paused: it would fire at the next change for nothing the customer
 * waited for (decision 038).
 */
export async function changeRateAlert(
  db: Database,
  accountId: number,
  id: number,
  paused: boolean,
): Promise<RateAlertAnswer> {
  return await db.transaction(async (tx) => {
    // Read in the write transaction: an alert that fires meanwhile (a rate change) is refused as
    // fired, never paused or resumed after it finished.
    const row = await alertOf(tx, accountId, id);
    if (row.firedAt) {
      throw new Conflict("This alert has fired and is no longer watched: set a new one to watch again.", {
        fields: { paused: "This alert has fired: set a new one to watch again." },
      });
    }
    const table = await currentRates(tx);
    if (row.paused && !paused) {
      const rate = watchedRate(table, row.sellCurrency, row.buyCurrency);
      if (rate !== null && reached(rate, row.targetRate, row.direction)) {
        throw new InvalidInput(
          alreadyReached(row.sellCurrency, row.buyCurrency, rate, row.targetRate, row.direction),
          "paused",
        );
      }
    }
    const [changed] = await tx.update(rateAlerts).set({ paused })
      .where(and(eq(rateAlerts.id, id), eq(rateAlerts.accountId, accountId))).returning();
    return answerOf(changed, table);
  });
}

/** Deletes an alert, fired or not. */
export async function deleteRateAlert(db: Database, accountId: number, id: number) {
  await alertOf(db, accountId, id);
  await db.delete(rateAlerts).where(and(eq(rateAlerts.id, id), eq(rateAlerts.accountId, accountId)));
  return { id, deleted: true as const };
}

const FIRED_ALERTS = `SELECT ${columnList(rateAlerts)} FROM rate_alerts
  WHERE account_id = ? AND fired_at IS NOT NULL ORDER BY fired_at DESC, id DESC LIMIT ?`;

/** The account's alerts that fired, latest first (the dashboard's "Rate alerts that fired"). */
export async function firedRateAlerts(db: Database, accountId: number, limit = 5) {
  // Fixed SQL (db/sql.ts): every dashboard asks, and mostly finds none.
  const rows = (await rowsOf<Record<string, unknown>>(db, FIRED_ALERTS, [accountId, limit]))
    .map((row) => fromColumns(rateAlerts, row));
  return rows.map((r) => ({
    id: r.id,
    sell_currency: r.sellCurrency,
    buy_currency: r.buyCurrency,
    target_rate: r.targetRate,
    direction: r.direction,
    fired_at: r.firedAt!.toISOString(),
    fired_rate: r.firedRate!,
  }));
}
