/**
 * What the customer keeps of a conversion once it went through: its reference, both amounts, the
 * rate, the fee, when, and a link to the movement it made in the ledger (the transactions page of
 * its ledger transfer, /account/transactions/{transfer_id}).
 */
import { useTakeFocus } from "../ui/take-focus.ts";
import type { Conversion } from "./calls.ts";

const TERM = "text-neutral-600 dark:text-neutral-400";

/** Where a ledger transfer of the account is shown. */
export const movementPath = (transferId: number) => `/account/transactions/${transferId}`;

/**
 * "27 Nov 2026, 11:42:05 GMT+1", in the browser's time zone (the moment as the customer lived it),
 * named: the movement's page says its times in UTC, and two unnamed times would seem to disagree.
 */
export function receiptTime(iso: string, timeZone?: string): string {
  return new Date(iso).toLocaleString("en-GB", {
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    timeZoneName: "short",
    timeZone,
  });
}

export function ConversionReceipt({ conversion: c, onDismiss }: { conversion: Conversion; onDismiss: () => void }) {
  // The receipt replaces the quote whose Confirm was pressed: the keyboard goes to it.
  const heading = useTakeFocus<HTMLHeadingElement>(true);
  const rows: [string, string][] = [
    ["Reference", `Conversion ${c.id}`],
    ["You sold", `${c.sell_amount} ${c.sell_currency}`],
    ["You received", `${c.buy_amount} ${c.buy_currency}`],
    ["Rate", `1 ${c.sell_currency} = ${c.rate} ${c.buy_currency}`],
    ["Fee (included in what you sold)", `${c.fee} ${c.fee_currency}`],
    ["Time", receiptTime(c.created_at)],
  ];
  return (
    <section
      aria-labelledby="convert-receipt-title"
      className="space-y-4 rounded-lg border border-green-700 bg-green-50 p-4 dark:border-green-500 dark:bg-neutral-900"
      data-receipt
    >
      <h2 ref={heading} tabIndex={-1} id="convert-receipt-title" className="text-base font-semibold">
        Conversion receipt
      </h2>
      <dl className="grid grid-cols-[minmax(0,1fr)_auto] gap-x-4 gap-y-2 text-sm">
        {rows.map(([label, value]) => (
          <div key={label} className="contents">
            <dt className={TERM}>{label}</dt>
            <dd className="text-right whitespace-nowrap tabular-nums">{value}</dd>
          </div>
        ))}
      </dl>
      <div className="flex flex-wrap gap-3">
        <a className="btn-outline" href={movementPath(c.transfer_id)}>See the movement</a>
        <button type="button" className="btn-ghost" onClick={onDismiss}>Convert again</button>
      </div>
    </section>
  );
}
