/**
 * Importing the bank's statement file (POST console/receipts/import, decision 046): an
 * administrator picks the camt.053 file the bank sent; each booked credit becomes a receipt, once,
 * and the table under the form says what became of every entry of the file.
 */
import { type FormEvent, useState } from "react";
import { receiptKeys } from "../lib/query-keys.ts";
import { notify } from "../lib/notification-store.ts";
import { FormAlert } from "../ui/alert.tsx";
import { SubmitButton } from "../ui/submit-button.tsx";
import { CELL, EmptyRow, MUTED, NUMBER, Table } from "../ui/table.tsx";
import { useForm } from "../ui/use-form.ts";
import { importStatement, type StatementImport } from "./calls.ts";

type Result = StatementImport["entries"][number]["result"];

const RESULT_TEXT: Record<Result, string> = {
  credited: "Credited",
  unmatched: "Unmatched: waits for allocation",
  awaiting_approval: "Awaiting a second administrator's approval",
  held_duplicate: "Held as a likely duplicate",
  payout_return: "Returned payout: held against payment",
  already_imported: "Already imported: skipped",
  debit_ignored: "Debit: ignored",
  not_booked: "Not booked yet: ignored",
  unsupported_currency: "A currency we do not hold: ignored",
};

const COUNT_TEXT: [keyof StatementImport["counts"], string][] = [
  ["credited", "Credited"],
  ["held_for_approval", "Held for approval"],
  ["held_as_duplicates", "Held as duplicates"],
  ["unmatched", "Unmatched"],
  ["payout_returns", "Returns of our payouts"],
  ["duplicates_skipped", "Already imported"],
  ["debits_ignored", "Debits ignored"],
  ["others_skipped", "Others ignored"],
];

const COLUMNS = [
  { label: "Booked" },
  { label: "Bank reference" },
  { label: "Payer" },
  { label: "Reference" },
  { label: "Amount", numeric: true },
  { label: "Result" },
];

export function StatementImportForm() {
  const [file, setFile] = useState<{ name: string; text: string } | null>(null);
  const [imported, setImported] = useState<StatementImport | null>(null);
  const form = useForm({
    call: importStatement,
    // The same file sent again after a lost answer is answered once; another file is a new import.
    idempotent: true,
    invalidates: [receiptKeys.all],
    onSuccess(answer) {
      setImported(answer);
      const { credited, unmatched, payout_returns, duplicates_skipped } = answer.counts;
      const returns = payout_returns ? `, ${payout_returns} returned payouts` : "";
      notify({
        title: `Statement ${answer.message_id} imported`,
        description: `${credited} credited, ${unmatched} unmatched${returns}, ${duplicates_skipped} already imported.`,
        color: "success",
      });
    },
  });

  async function choose(event: { currentTarget: HTMLInputElement }) {
    const chosen = event.currentTarget.files?.[0];
    form.show({});
    setFile(chosen ? { name: chosen.name, text: await chosen.text() } : null);
  }

  function send(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!file) return form.show({ file: "Choose the statement file the bank sent (camt.053 XML)." });
    setImported(null);
    void form.submit({ document: { type: "application/xml", content: file.text } });
  }

  return (
    <form onSubmit={send} noValidate aria-labelledby="statement-import-title" className="card flex flex-col gap-4">
      <h2 id="statement-import-title" className="text-lg font-semibold">Import the bank's statement</h2>
      <p className={`text-sm ${MUTED}`}>
        The end-of-day statement file in ISO 20022 camt.053.001.02. Each booked credit becomes a receipt, matched by the
        account reference in its payment details; a file imported again credits nothing twice.
      </p>
      <FormAlert error={form.error} fields={form.fields} shown={["file"]} />
      <div className="flex flex-col gap-1">
        <label htmlFor="statement-file" className="text-sm font-medium">Statement file</label>
        <input
          id="statement-file"
          type="file"
          accept=".xml,application/xml,text/xml"
          onChange={choose}
          aria-invalid={form.fields.file ? true : undefined}
          aria-describedby={form.fields.file ? "statement-file-error" : undefined}
        />
        {form.fields.file
          ? <p id="statement-file-error" className="text-sm text-red-700 dark:text-red-300">{form.fields.file}</p>
          : null}
      </div>
      <div>
        <SubmitButton pending={form.submitting} pendingLabel="Importing…" className="btn-primary">
          Import the statement
        </SubmitButton>
      </div>
      {imported ? <ImportResult imported={imported} /> : null}
    </form>
  );
}

function ImportResult({ imported }: { imported: StatementImport }) {
  return (
    <section aria-labelledby="statement-result-title" className="flex flex-col gap-3">
      <h3 id="statement-result-title" className="font-semibold">
        Statement {imported.message_id}: {imported.statements.map((s) => `${s.id} (account ${s.account})`).join(", ")}
      </h3>
      <dl className="grid grid-cols-2 gap-2 text-sm sm:grid-cols-4 lg:grid-cols-7">
        {COUNT_TEXT.map(([key, label]) => (
          <div key={key} className="rounded-lg border border-neutral-200 px-3 py-2 dark:border-neutral-800">
            <dt className={MUTED}>{label}</dt>
            <dd className="text-lg font-semibold tabular-nums">{imported.counts[key]}</dd>
          </div>
        ))}
      </dl>
      <Table caption="The statement's entries" columns={COLUMNS}>
        {imported.entries.length === 0 ? <EmptyRow columns={COLUMNS.length}>The file has no entries.</EmptyRow> : null}
        {imported.entries.map((e, i) => (
          <tr key={i}>
            <td className={CELL}>{e.booking_date ?? ""}</td>
            <td className={`${CELL} font-mono text-xs`}>{e.bank_reference ?? e.entry_reference ?? ""}</td>
            <td className={CELL}>{e.payer_name ?? ""}</td>
            <td className={`${CELL} break-all`}>{e.reference ?? ""}</td>
            <td className={NUMBER}>{e.amount} {e.currency}</td>
            <td className={CELL}>
              {RESULT_TEXT[e.result]}
              {e.account_ref ? ` (${e.account_ref})` : ""}
              {e.payment_id !== null ? ` ${e.payment_id}` : ""}
              {e.receipt_id !== null ? <span className={`block text-xs ${MUTED}`}>Receipt {e.receipt_id}</span> : null}
            </td>
          </tr>
        ))}
      </Table>
    </section>
  );
}
