/**
 * The full cost of a payment, as the customer sees it before confirming and on the payment's page:
 * the mid-market rate, our rate, the markup in money, the fee, the total debited, what arrives, by
 * which rail and when (decision 030).
 */
import { momentInUtc } from "../../lib/moment.ts";
import { costLabels } from "../../lib/payments/money-back.ts";
import { arrivesInstantly, speedAfterSendingText } from "../../lib/payments/rail-rules.ts";
import { Amount } from "../ui/amount.tsx";
import type { PaymentQuote } from "./calls.ts";

const TERM = "text-neutral-600 dark:text-neutral-400";

type Cost = Pick<
  PaymentQuote,
  | "sell_currency"
  | "sell_amount"
  | "buy_currency"
  | "buy_amount"
  | "fee"
  | "fee_currency"
  | "mid_rate"
  | "rate"
  | "markup"
  | "priority"
  | "rail"
  | "rail_name"
  | "expected_arrival"
>;

/**
 * A payment's statuses before it is sent: when it arrives is counted from its sending. A quote
 * (`draft`) is one too: Confirm makes a payment that waits for approval or in the payout desk's
 * queue, so the form's quote says what the payment's page will say.
 */
const NOT_SENT: readonly string[] = ["draft", "pending_approval", "approved"];

/**
 * What a payment converted on the way says of its rate while it waits for approval (decision 092),
 * in the same words wherever its preparer or its approver reads it: on the payment's page, and to the
 * payer the moment it starts waiting, so that nobody learns of the limit only from the refusal.
 * `ranOut`: the server said the time has passed (it knows the time; the browser's clock may not).
 * Nothing happens by itself at that time: someone rejects or cancels it and prepares it again.
 */
export function rateHeldText(until: string, ranOut: boolean): string {
  const when = momentInUtc(new Date(until));
  return ranOut
    ? `Its rate was guaranteed until ${when} while it waited for approval: it can no longer be approved.`
    : `Its rate is guaranteed until ${when} while it waits for approval. After that it cannot be ` +
      "approved, and must be prepared again at the day's rate.";
}

/**
 * "within seconds" on a rail's instant scheme, else "by Tue 3 Mar 2026": the rail and speed say
 * which, not how near the expected time is (the same business day is not within seconds). A payment
 * not sent yet (`status` a quote, waiting for approval or approved, in the payout desk's queue) is
 * expected from when it is sent ("within seconds of being sent"): its expected date assumed it was
 * sent at once. The speeds the payment form offers are the same words (speedAfterSendingText).
 */
export function arrivalText(cost: Pick<Cost, "rail" | "priority" | "expected_arrival">, status: string): string {
  if (NOT_SENT.includes(status)) return speedAfterSendingText(cost.rail, cost.priority);
  if (arrivesInstantly(cost.rail, cost.priority)) return "within seconds";
  return `by ${
    new Date(Date.parse(cost.expected_arrival)).toLocaleDateString("en-GB", {
      weekday: "short",
      day: "numeric",
      month: "short",
      year: "numeric",
      timeZone: "UTC",
    })
  }`;
}

/**
 * `arrival` is null for a payment that ended without arriving (rejected, cancelled, failed);
 * `status` is the payment's, when it has one: the totals of an unpaid one are what they would have
 * been, not what was debited and arrives.
 */
export function CostList({ cost, arrival, status, arrivalLabel = "Expected to arrive" }: {
  cost: Cost;
  arrival: string | null;
  status?: string;
  /** "Arrived" for a payment that did, with when. */
  arrivalLabel?: string;
}) {
  const converts = cost.rate !== null;
  const labels = costLabels(status ?? "draft");
  return (
    // As the calculator's price list: the terms take what room is left and wrap; a rate or an amount
    // stays on one line ("1 GBP = / 1.137656 / EUR" at 390 px was hard to read).
    <dl className="grid grid-cols-[minmax(0,1fr)_auto] gap-x-4 gap-y-2 text-sm">
      <dt className={TERM}>{labels.debited}</dt>
      <dd className="text-right font-semibold">
        <Amount amount={cost.sell_amount} currency={cost.sell_currency} />
      </dd>
      <dt className={TERM}>Transfer fee ({cost.priority ? "priority" : "regular"}, included)</dt>
      <dd className="text-right">
        <Amount amount={cost.fee} currency={cost.fee_currency} />
      </dd>
      {converts
        ? (
          <>
            <dt className={TERM}>Mid-market rate</dt>
            <dd className="text-right whitespace-nowrap tabular-nums">
              {`1 ${cost.sell_currency} = ${cost.mid_rate} ${cost.buy_currency}`}
            </dd>
            <dt className={TERM}>Our rate</dt>
            <dd className="text-right whitespace-nowrap tabular-nums">
              {`1 ${cost.sell_currency} = ${cost.rate} ${cost.buy_currency}`}
            </dd>
            <dt className={TERM}>Our markup on the rate (included)</dt>
            <dd className="text-right">
              <Amount amount={cost.markup ?? ""} currency={cost.sell_currency} />
            </dd>
          </>
        )
        : (
          <>
            <dt className={TERM}>Exchange rate</dt>
            <dd className="text-right">None: nothing is converted</dd>
          </>
        )}
      <dt className={TERM}>{labels.arrives}</dt>
      <dd className="text-right font-semibold">
        <Amount amount={cost.buy_amount} currency={cost.buy_currency} />
      </dd>
      {arrival === null ? null : (
        <>
          <dt className={TERM}>{arrivalLabel}</dt>
          {/* Narrower than its text so that it wraps rather than widen the values' column; at their edge. */}
          <dd className="max-w-36 justify-self-end text-right">{`${arrival} (${cost.rail_name})`}</dd>
        </>
      )}
    </dl>
  );
}
