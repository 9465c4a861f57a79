import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { errorText } from "../lib/api.ts";
import { Alert } from "../ui/alert.tsx";
import { Pager } from "../ui/pager.tsx";
import { CELL, EmptyRow, MUTED, NUMBER, Table } from "../ui/table.tsx";
import { migrationQuery, type MigrationRunWithRows, type Outcome, ROWS_PER_PAGE } from "./calls.ts";

/** How often a run being committed is asked again, for its progress bar. */
const POLL_MS = 1000;

const OUTCOME_WORDS = { created: "Created", skipped: "Skipped (duplicate)", refused: "Refused" } as const;
const DRY_WORDS = { created: "Would be created", skipped: "Would be skipped", refused: "Refused" } as const;

const working = (run: { status: string }) => run.status === "queued" || run.status === "running";

/** A run's counts, its job's progress and its lines, a page at a time, with a filter by outcome. */
export function RunView({ initial }: { initial: MigrationRunWithRows }) {
  const [page, setPage] = useState(1);
  const [outcome, setOutcome] = useState<Outcome | "">("");
  const first = page === 1 && outcome === "";
  const query = useQuery({
    ...migrationQuery(initial.id, page, outcome),
    initialData: first ? initial : undefined,
    refetchInterval: (q) => (q.state.data && working(q.state.data) ? POLL_MS : false),
  });
  const run = query.data ?? (first ? initial : null);
  if (query.isError && !run) return <Alert>{errorText(query.error)}</Alert>;
  if (!run) return <p className={MUTED}>Loading…</p>;
  const words = run.dry_run ? DRY_WORDS : OUTCOME_WORDS;
  const pages = Math.max(1, Math.ceil(run.rows.total / ROWS_PER_PAGE));
  return (
    <div className="flex flex-col gap-4" data-migration-run={run.id}>
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4" aria-label="Counts">
        {([
          ["Lines", run.counts.total],
          [words.created, run.counts.created],
          [words.skipped, run.counts.skipped],
          ["Refused", run.counts.refused],
        ] as const).map(([label, n]) => (
          <div key={label} className="card">
            <dt className={`text-sm ${MUTED}`}>{label}</dt>
            <dd className="text-2xl font-semibold tabular-nums" data-count={label}>{n}</dd>
          </div>
        ))}
      </dl>
      <Progress run={run} />
      <div className="flex flex-wrap items-end gap-3">
        <label className="flex flex-col text-sm">
          <span className="font-medium">Show</span>
          <select
            className="input"
            value={outcome}
            onChange={(event) => {
              setOutcome(event.target.value as Outcome | "");
              setPage(1);
            }}
          >
            <option value="">Every line</option>
            <option value="created">{words.created}</option>
            <option value="skipped">{words.skipped}</option>
            <option value="refused">Refused</option>
          </select>
        </label>
      </div>
      <Table
        caption="Lines of the file"
        busy={query.isFetching}
        columns={[
          { label: "Line", numeric: true },
          { label: "Legacy id" },
          { label: "Email" },
          { label: "Outcome" },
          { label: "Why" },
          { label: "Customer" },
        ]}
      >
        {run.rows.items.length === 0
          ? <EmptyRow columns={6}>No lines here.</EmptyRow>
          : run.rows.items.map((row) => (
            <tr key={row.line} data-line={row.line} data-outcome={row.outcome}>
              <td className={NUMBER}>{row.line}</td>
              <td className={CELL}>{row.legacy_id ?? "—"}</td>
              <td className={`${CELL} break-all`}>{row.email ?? "—"}</td>
              <td className={CELL}>{words[row.outcome]}</td>
              <td className={CELL}>{row.reason ?? ""}</td>
              <td className={CELL}>
                {row.customer_id
                  ? (
                    <>
                      <a className="underline" href={`/console/users/${row.customer_id}`}>#{row.customer_id}</a>
                      {row.mail === "sent" ? " · emailed" : row.mail === "in doubt" ? " · email in doubt" : ""}
                    </>
                  )
                  : ""}
              </td>
            </tr>
          ))}
      </Table>
      <Pager label="Lines" page={page} pages={pages} onPage={setPage} />
    </div>
  );
}

function Progress({ run }: { run: MigrationRunWithRows }) {
  if (run.dry_run) {
    return <p className={`text-sm ${MUTED}`}>A dry run: nothing was created and nobody was emailed.</p>;
  }
  if (run.status === "failed") {
    return <Alert title="The migration stopped">{run.error ?? "The job failed."}</Alert>;
  }
  if (run.status === "done") {
    return (
      <Alert tone="success" title="Migration done" live>
        {run.counts.created} customers created, {run.counts.emailed} emailed a link to choose their password
        {run.counts.in_doubt ? `; ${run.counts.in_doubt} emails in doubt (check them before sending again)` : ""}.
      </Alert>
    );
  }
  const { done = 0, total = 0, message = null } = run.progress ?? {};
  return (
    <div role="status" className="flex flex-col gap-1 text-sm">
      <span>{message ?? "Waiting to start"}: {done} of {total || "…"}</span>
      <progress className="w-full" max={total || 1} value={done} aria-label="Migration progress" />
    </div>
  );
}
