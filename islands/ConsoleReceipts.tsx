import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { listReceipts, type Receipt } from "./console/calls.ts";
import { ReceiptForm } from "./console/receipt-form.tsx";
import { StatementImportForm } from "./console/statement-import.tsx";
import { RECEIPT_COLUMNS, type ReceiptPanel, ReceiptRows } from "./console/receipt-rows.tsx";
import { read, withQueries } from "./lib/query-client.tsx";
import { receiptKeys } from "./lib/query-keys.ts";
import type { CurrencyOption } from "./ui/currency-select.tsx";
import { EmptyRow, Table } from "./ui/table.tsx";

export interface ConsoleReceiptsProps {
  /** As the server rendered them: the receipts query starts from these. */
  receipts: Receipt[];
  currencies: CurrencyOption[];
}

type Filter = "all" | "waiting";

/** Receipts a person must act on: a second administrator's approval, a likely duplicate, an unmatched one. */
const needsAPerson = (r: Receipt) => ["awaiting_approval", "held_duplicate", "unmatched"].includes(r.status);

/**
 * The administrators' receipts (money customers sent to the company's bank account): a form that
 * records one, the list with a filter (all / waiting for a person), and on each row what can be
 * done with it: approve or decline, release or discard, allocate, reverse (docs/decisions/026).
 * Each write puts the server's answer about the receipt into the list.
 */
function ConsoleReceipts({ receipts: initial, currencies }: ConsoleReceiptsProps) {
  const receipts = useQuery({ ...read(receiptKeys.all, listReceipts), initialData: initial }).data;
  const [filter, setFilter] = useState<Filter>("all");
  const [open, setOpen] = useState<{ id: Receipt["id"]; panel: ReceiptPanel } | null>(null);

  const shown = receipts.filter((r) => filter === "all" || needsAPerson(r));
  const waiting = receipts.filter(needsAPerson).length;

  return (
    <div className="flex flex-col gap-6">
      <StatementImportForm />
      <ReceiptForm currencies={currencies} />

      <div className="flex flex-wrap items-center justify-between gap-3">
        <div role="group" aria-label="Show" className="flex gap-2">
          {(["all", "waiting"] as const).map((f) => (
            <button
              key={f}
              type="button"
              aria-pressed={filter === f}
              onClick={() => setFilter(f)}
              className={filter === f ? "btn-primary" : "btn-outline"}
            >
              {f === "all" ? "All" : `Waiting for a person (${waiting})`}
            </button>
          ))}
        </div>
        <p role="status" className="text-sm text-neutral-600 dark:text-neutral-300">
          {shown.length === 1 ? "1 receipt" : `${shown.length} receipts`}
        </p>
      </div>

      <Table caption="Receipts" columns={RECEIPT_COLUMNS}>
        {shown.length === 0
          ? (
            <EmptyRow columns={RECEIPT_COLUMNS.length}>
              {filter === "all" ? "No receipts yet." : "No receipt is waiting for a person."}
            </EmptyRow>
          )
          : null}
        {shown.map((r) => (
          <ReceiptRows
            key={r.id}
            receipt={r}
            panel={open?.id === r.id ? open.panel : null}
            onPanel={(panel) => setOpen(panel ? { id: r.id, panel } : null)}
          />
        ))}
      </Table>
    </div>
  );
}

export default withQueries(ConsoleReceipts);
