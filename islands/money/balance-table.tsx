/**
 * The customer's balances as a table: every currency held, available and held amounts. Shown by
 * the Balances island (dashboard, balances page) and beside the convert form.
 */
import { NUMBER, ROW_HEADER, Table } from "../ui/table.tsx";
import type { Balance } from "./calls.ts";

/** The table (or the sentence for no money yet), and a polite status about the last refresh. */
export function BalanceTable({ balances, busy, status }: { balances: Balance[]; busy: boolean; status: string }) {
  return (
    <>
      {balances.length === 0
        ? <p className="text-neutral-700 dark:text-neutral-300">You have no money in your account yet</p>
        : (
          <Table
            caption="Your balances"
            busy={busy}
            columns={[{ label: "Currency" }, { label: "Available", numeric: true }, {
              label: "Held",
              numeric: true,
            }]}
          >
            {balances.map((b) => (
              <tr key={b.currency}>
                <th scope="row" className={ROW_HEADER}>{b.currency}</th>
                <td className={NUMBER}>{b.available}</td>
                <td className={`${NUMBER} text-neutral-600 dark:text-neutral-400`}>{b.held}</td>
              </tr>
            ))}
          </Table>
        )}
      <p role="status" className="sr-only">{status}</p>
    </>
  );
}

/** What the status line says about the balances query: refreshed, or could not be. */
export function refreshStatus(query: { isError: boolean; isFetchedAfterMount: boolean; isFetching: boolean }): string {
  if (query.isError) return "The balances could not be updated. Reload the page to see them.";
  return query.isFetchedAfterMount && !query.isFetching ? "Balances updated." : "";
}
