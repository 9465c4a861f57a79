/**
 * The customer's balances as a table: every currency held, available and held amounts. Shown by
 * the Balances island (dashboard, balances page) and, beside the convert form, by ConvertForm,
 * which keeps it up to date after a conversion.
 */

export interface BalanceRow {
  currency: string;
  /** Decimal strings with the currency's digits. */
  available: string;
  held: string;
}

/** The table (or the sentence for no money yet), and a polite status about the last refresh. */
export function BalanceTable({ balances, busy, status }: { balances: BalanceRow[]; busy: boolean; status: string }) {
  return (
    <>
      {balances.length === 0
        ? <p className="text-neutral-700 dark:text-neutral-300">You have no money in your account yet</p>
        : (
          <div className="overflow-x-auto rounded-xl border border-neutral-200 dark:border-neutral-800">
            <table className="w-full text-left text-sm" aria-busy={busy || undefined}>
              <caption className="sr-only">Your balances</caption>
              <thead className="bg-neutral-50 text-neutral-700 dark:bg-neutral-900 dark:text-neutral-300">
                <tr>
                  <th scope="col" className="px-4 py-3 font-semibold">Currency</th>
                  <th scope="col" className="px-4 py-3 text-right font-semibold">Available</th>
                  <th scope="col" className="px-4 py-3 text-right font-semibold">Held</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-neutral-200 dark:divide-neutral-800">
                {balances.map((b) => (
                  <tr key={b.currency}>
                    <th scope="row" className="px-4 py-3 font-medium text-neutral-900 dark:text-neutral-100">
                      {b.currency}
                    </th>
                    <td className="px-4 py-3 text-right tabular-nums">{b.available}</td>
                    <td className="px-4 py-3 text-right tabular-nums text-neutral-600 dark:text-neutral-400">
                      {b.held}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      <p role="status" className="sr-only">{status}</p>
    </>
  );
}
