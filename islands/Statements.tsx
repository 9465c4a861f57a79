import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useState } from "react";
import { ACCOUNT_PARAM } from "../lib/api-types.ts";
import { errorText, fieldsOf } from "./lib/api.ts";
import { withQuery } from "./lib/query-string.ts";
import { withQueries } from "./lib/query-client.tsx";
import { statementKeys } from "./lib/query-keys.ts";
import { useWrite } from "./lib/write.ts";
import { jobQuery, requestStatement, type Statement, type StatementBody, statementsQuery } from "./statements/calls.ts";
import { Alert, FormAlert } from "./ui/alert.tsx";
import { SelectField, TextField } from "./ui/field.tsx";
import { SubmitButton } from "./ui/submit-button.tsx";
import { CELL, EmptyRow, MUTED, PHONE_HIDDEN, PHONE_ONLY, Table } from "./ui/table.tsx";

export interface StatementsProps {
  accountRef: string;
  /** The currencies the account has held, for the currency choice ("all" besides). */
  currencies: { code: string; name: string }[];
  /** Today, UTC (YYYY-MM-DD): the latest day a period may end. */
  today: string;
  /** The account's recent statements, as the server rendered them. */
  statements: Statement[];
}

/** How often a job being watched, or a list with a statement being made, is asked again. */
const POLL_MS = 1000;

const FORMAT_NAMES = { pdf: "PDF", csv: "CSV" } as const;

function firstOfMonth(today: string): string {
  return `${today.slice(0, 8)}01`;
}

const shortTime = (iso: string) => iso.slice(0, 16).replace("T", " ");

/**
 * A statement's file as this page links to it: naming the account the page shows, and followed
 * rather than saved (no `download`: the file comes as an attachment), so that after a switch to
 * another account in another window the page comes back saying so instead of saving the refusal
 * as the file (decision 075).
 */
const fileLink = (file: string, accountRef: string) => withQuery(file, { [ACCOUNT_PARAM]: accountRef });

/** A job's progress as a bar and the words beside it, polled until the job ends. */
function Progress({ accountRef, jobId, onDone }: { accountRef: string; jobId: number; onDone: () => void }) {
  const query = useQuery({
    ...jobQuery(accountRef, jobId),
    refetchInterval: (q) => {
      const status = q.state.data?.status;
      return status === "succeeded" || status === "failed" || status === "cancelled" ? false : POLL_MS;
    },
  });
  const job = query.data;
  const finished = job?.status === "succeeded" || job?.status === "failed";
  useEffect(() => {
    if (finished) onDone();
  }, [finished]);
  if (query.isError) return <Alert>{errorText(query.error)}</Alert>;
  if (job?.status === "failed") {
    return <Alert title="The statement could not be made">{job.error}</Alert>;
  }
  const result = job?.status === "succeeded" ? job.result as { file?: string } | null : null;
  if (result?.file) {
    return (
      <Alert tone="success" title="Your statement is ready" live>
        <a
          className="font-medium text-primary-700 underline dark:text-primary-300"
          href={fileLink(result.file, accountRef)}
          data-statement-download
        >
          Download the statement
        </a>{" "}
        (kept for 7 days).
      </Alert>
    );
  }
  const done = job?.progress?.done ?? 0;
  const total = job?.progress?.total ?? 0;
  const label = job?.progress ? `${done} of ${total} lines written` : "Waiting to start";
  return (
    <div className="space-y-1" data-statement-progress>
      <label htmlFor="statement-progress" className="field-label">Making your statement: {label}</label>
      <progress
        id="statement-progress"
        className="w-full"
        max={total || 1}
        value={total ? done : undefined}
        aria-valuetext={label}
      />
    </div>
  );
}

function StatementList({ accountRef, initial }: { accountRef: string; initial: Statement[] }) {
  const query = useQuery({
    ...statementsQuery(accountRef),
    initialData: { items: initial },
    refetchInterval: (q) => q.state.data?.items.some((s) => s.state === "preparing") ? POLL_MS * 2 : false,
  });
  const rows = query.data.items;
  return (
    <Table
      caption="Your statements of the last 7 days"
      busy={query.isFetching}
      columns={[
        { label: "Period" },
        { label: "Currency", hiddenOnPhone: true },
        { label: "Format", hiddenOnPhone: true },
        { label: "Available until", hiddenOnPhone: true },
        { label: "File" },
      ]}
    >
      {rows.length === 0 ? <EmptyRow columns={5}>No statement yet: ask for one above.</EmptyRow> : rows.map((s) => {
        const currency = s.currency ?? "All currencies";
        const until = s.expires_at ? `${shortTime(s.expires_at)} UTC` : "-";
        // On a phone five columns do not fit (the page scrolled sideways, the download link off
        // screen): the currency and format go under the period, the date it is kept to under its link.
        return (
          <tr key={s.id} data-statement-id={s.id}>
            <td className={`${CELL} sm:whitespace-nowrap`}>
              {s.from} to {s.to}
              <span className={`${PHONE_ONLY} ${MUTED}`}>{currency} · {FORMAT_NAMES[s.format]}</span>
            </td>
            <td className={`${CELL} ${PHONE_HIDDEN}`}>{currency}</td>
            <td className={`${CELL} ${PHONE_HIDDEN}`}>{FORMAT_NAMES[s.format]}</td>
            <td className={`${CELL} ${PHONE_HIDDEN}`}>{until}</td>
            <td className={CELL}>
              {s.file_url
                ? (
                  <a
                    className="break-all text-primary-700 underline sm:break-normal dark:text-primary-300"
                    href={fileLink(s.file_url, accountRef)}
                  >
                    Download {s.file_name}
                  </a>
                )
                : <span className={MUTED}>{s.state === "failed" ? "Failed: ask again" : "Being made…"}</span>}
              {s.expires_at
                ? <span className={`${PHONE_ONLY} ${MUTED}`} data-available-until>Available until {until}</span>
                : null}
            </td>
          </tr>
        );
      })}
    </Table>
  );
}

/**
 * /account/reports: the customer chooses a period, a currency or all, and a format; the statement
 * is made by a background job whose progress bar polls GET account/jobs/{id}; once ready it
 * downloads, and it stays in the list below for 7 days (decision 037).
 */
function Statements({ accountRef, currencies, today, statements }: StatementsProps) {
  const client = useQueryClient();
  const [from, setFrom] = useState(firstOfMonth(today));
  const [to, setTo] = useState(today);
  const [currency, setCurrency] = useState("");
  const [format, setFormat] = useState<"pdf" | "csv">("pdf");
  const [jobId, setJobId] = useState<number | null>(null);
  const ask = useWrite({
    call: requestStatement,
    idempotent: true,
    invalidates: [statementKeys.of(accountRef)],
    onSuccess: (answer) => setJobId(answer.job.id),
  });
  const fields = fieldsOf(ask.error);

  function submit(event: FormEvent) {
    event.preventDefault();
    setJobId(null);
    // The currencies offered are the account's; the server checks the code ("" is every currency).
    ask.mutate({ body: { currency: (currency || null) as StatementBody["currency"], from, to, format } });
  }

  return (
    <div className="space-y-8">
      <form onSubmit={submit} className="card space-y-4 p-6" noValidate aria-label="Ask for a statement">
        <FormAlert
          error={ask.isError ? errorText(ask.error) : null}
          fields={fields}
          shown={["from", "to", "currency", "format"]}
        />
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField
            id="statement-from"
            label="From"
            type="date"
            max={today}
            value={from}
            onChange={(e) => setFrom(e.target.value)}
            error={fields.from}
          />
          <TextField
            id="statement-to"
            label="To"
            type="date"
            max={today}
            value={to}
            onChange={(e) => setTo(e.target.value)}
            error={fields.to}
            hint="Both days included, in UTC; at most a year."
          />
          <SelectField
            id="statement-currency"
            label="Currency"
            value={currency}
            onChange={(e) => setCurrency(e.target.value)}
            error={fields.currency}
          >
            <option value="">All currencies (a section each)</option>
            {currencies.map((c) => <option key={c.code} value={c.code}>{c.code} - {c.name}</option>)}
          </SelectField>
          <SelectField
            id="statement-format"
            label="Format"
            value={format}
            onChange={(e) => setFormat(e.target.value as "pdf" | "csv")}
            error={fields.format}
          >
            <option value="pdf">PDF, to read and keep</option>
            <option value="csv">CSV, for a spreadsheet or accounting software</option>
          </SelectField>
        </div>
        <SubmitButton pending={ask.isPending} pendingLabel="Asking…" className="btn-primary">
          Make the statement
        </SubmitButton>
        {jobId === null ? null : (
          <Progress
            key={jobId}
            accountRef={accountRef}
            jobId={jobId}
            onDone={() => void client.invalidateQueries({ queryKey: statementKeys.of(accountRef) })}
          />
        )}
      </form>
      <StatementList accountRef={accountRef} initial={statements} />
    </div>
  );
}

export default withQueries(Statements);
