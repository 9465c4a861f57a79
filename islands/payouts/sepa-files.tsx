/**
 * /console/local's SEPA files: "Export SEPA file" puts every approved EUR SEPA payment in no file
 * yet into a new pain.001 file and downloads it; what the file could not carry and the names it
 * wrote differently are listed; below, the files made so far, each downloadable again.
 */
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { errorText } from "../lib/api.ts";
import { notify } from "../lib/notification-store.ts";
import { read } from "../lib/query-client.tsx";
import { payoutKeys } from "../lib/query-keys.ts";
import { useWrite } from "../lib/write.ts";
import { when } from "../payments/timeline.tsx";
import { Alert } from "../ui/alert.tsx";
import { Amount } from "../ui/amount.tsx";
import { CELL, EmptyRow, NUMBER, ROW_HEADER, Table } from "../ui/table.tsx";
import { createBatch, type CreatedBatch, fileUrl, listBatches, type PayoutBatch } from "./calls.ts";
import { BusyButton } from "../ui/submit-button.tsx";

const COLUMNS = [
  { label: "File" },
  { label: "Made" },
  { label: "Payments", numeric: true },
  { label: "Total", numeric: true },
  { label: "Download", hidden: true },
];

const paymentsText = (count: number) => count === 1 ? "1 payment" : `${count} payments`;

/**
 * Downloads a file the server answers as an attachment: the browser follows a link to it and, the
 * answer being a file, stays on the page. Followed rather than saved (no `download`), so that a
 * refusal brings the desk back with the reason instead of being saved as the file (decision 075).
 */
function download(url: string) {
  const link = document.createElement("a");
  link.href = url;
  document.body.append(link);
  link.click();
  link.remove();
}

export function SepaFiles({ batches: initial }: { batches: PayoutBatch[] }) {
  const batches = useQuery({ ...read(payoutKeys.batches, listBatches), initialData: initial }).data;
  const [made, setMade] = useState<CreatedBatch | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const exporting = useWrite({
    call: createBatch,
    idempotent: true,
    invalidates: [payoutKeys.all],
    onSuccess(batch) {
      setMade(batch);
      setProblem(null);
      notify({
        title: "SEPA file made",
        description: `${paymentsText(batch.payment_count)}, ${batch.total} ${batch.currency}: ${batch.file_name}`,
        color: "success",
      });
      download(fileUrl(batch.id));
    },
  });

  return (
    <section className="card space-y-4" aria-labelledby="sepa-files-title">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="sepa-files-title" className="text-lg font-semibold">SEPA files</h2>
        <BusyButton
          type="button"
          className="btn-primary"
          busy={exporting.isPending}
          aria-busy={exporting.isPending || undefined}
          onClick={() =>
            exporting.mutate({ body: { scheme: "sepa" } }, {
              onError: (err) => {
                setMade(null);
                setProblem(errorText(err));
              },
            })}
        >
          {exporting.isPending ? "Making the file…" : "Export SEPA file"}
        </BusyButton>
      </div>
      <p className="text-sm">
        Every approved EUR SEPA payment not in a file yet goes into one pain.001 file, to upload to the company's bank.
        Making the file sends the payments: their money is paid out and their customers are told. Mark each one arrived
        when the bank's statement shows it, or fail it when the bank returns it.
      </p>
      {problem ? <Alert>{problem}</Alert> : null}
      {made ? <MadeFile batch={made} /> : null}
      <Table caption="SEPA files" columns={COLUMNS}>
        {batches.length === 0 ? <EmptyRow columns={COLUMNS.length}>No SEPA file yet.</EmptyRow> : null}
        {batches.map((b) => (
          <tr key={b.id} data-batch-id={b.id}>
            <th scope="row" className={`${ROW_HEADER} font-mono`}>{b.message_id}</th>
            <td className={CELL}>{`${when(b.created_at)} by ${b.created_by.name}`}</td>
            <td className={NUMBER}>{b.payment_count}</td>
            <td className={NUMBER}>
              <Amount amount={b.total} currency={b.currency} />
            </td>
            <td className={`${CELL} text-right`}>
              <a className="btn-outline" href={fileUrl(b.id)}>
                {`Download ${b.file_name}`}
              </a>
            </td>
          </tr>
        ))}
      </Table>
    </section>
  );
}

/** What the new file holds, what it left out and what it wrote differently. */
function MadeFile({ batch }: { batch: CreatedBatch }) {
  return (
    <div className="space-y-3">
      <Alert tone="success" title={`${batch.file_name} is downloading`} live>
        {`${paymentsText(batch.payment_count)}, ${batch.total} ${batch.currency}. `}
        <a className="underline" href={fileUrl(batch.id)}>Download it again</a>
      </Alert>
      {batch.test_details
        ? (
          <Alert tone="warning" title="Test details" live={false}>
            The file names the built-in test account as the debtor: set COMPANY_BANK_* before sending files to a bank.
          </Alert>
        )
        : null}
      {batch.left_out.length
        ? (
          <Alert tone="warning" title="Left out of the file" live={false}>
            <p>
              These payments stay approved: submit on the desk those it says the rail sends; for the others fix the
              recipient's bank details with the customer, or fail them.
            </p>
            <ul className="mt-1 list-disc pl-5">
              {batch.left_out.map((l) => (
                <li key={l.payment_id}>{`Payment ${l.payment_id}: ${l.problems.join(" ")}`}</li>
              ))}
            </ul>
          </Alert>
        )
        : null}
      {batch.changes.length
        ? (
          <Alert tone="info" title="Written differently in the file" live={false}>
            <p>SEPA files carry only basic Latin letters, and names of at most 70 characters.</p>
            <ul className="mt-1 list-disc pl-5">
              {batch.changes.map((c, i) => (
                <li key={i}>
                  {`Payment ${c.payment_id}, ${
                    c.field === "creditor_name" ? "name" : "reference"
                  }: “${c.given}” → “${c.written}”`}
                </li>
              ))}
            </ul>
          </Alert>
        )
        : null}
    </div>
  );
}
