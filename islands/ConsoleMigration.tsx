import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { errorText, newIdempotencyKey } from "./lib/api.ts";
import { withQueries } from "./lib/query-client.tsx";
import {
  getMigration,
  migrationKeys,
  type MigrationRunPage,
  type MigrationRunWithRows,
  ROWS_PER_PAGE,
  uploadMigration,
} from "./migrations/calls.ts";
import { api } from "./lib/api.ts";
import { LatestRuns } from "./migrations/latest-runs.tsx";
import { RunView } from "./migrations/run-view.tsx";
import { Alert } from "./ui/alert.tsx";
import { BusyButton, SubmitButton, useHydrated } from "./ui/submit-button.tsx";

export interface ConsoleMigrationProps {
  /** The file's columns, in the order the upload form lists them. */
  columns: readonly string[];
  /** The latest runs as the server read them: the list starts from them, and follows each upload. */
  runs: MigrationRunPage;
}

/**
 * /console/migration: choose a CSV file, try it as a dry run, read what each line would do, then
 * commit it: the run's page follows the background job that creates and emails the customers. The
 * latest runs below list each upload as it is made.
 */
function ConsoleMigration({ columns, runs }: ConsoleMigrationProps) {
  const client = useQueryClient();
  const hydrated = useHydrated();
  const [file, setFile] = useState<File | null>(null);
  const [dryRun, setDryRun] = useState<MigrationRunWithRows | null>(null);
  // One key per logical write: a retried click is answered once.
  const [keys, setKeys] = useState(() => ({ dry: newIdempotencyKey(), commit: newIdempotencyKey() }));

  const tryIt = useMutation({
    mutationFn: async (chosen: File) => {
      const run = await uploadMigration(chosen, true, keys.dry);
      return await api.send(getMigration, {
        params: { id: run.id },
        query: { page: "1", per_page: String(ROWS_PER_PAGE) },
      });
    },
    onSuccess: (run) => {
      setDryRun(run);
      void client.invalidateQueries({ queryKey: migrationKeys.all });
    },
  });
  const commit = useMutation({
    mutationFn: (chosen: File) => uploadMigration(chosen, false, keys.commit),
    onSuccess: (run) => {
      void client.invalidateQueries({ queryKey: migrationKeys.all });
      location.assign(`/console/migration/${run.id}`);
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!file) return;
    setDryRun(null);
    commit.reset();
    tryIt.mutate(file);
  }

  return (
    <div className="flex flex-col gap-8">
      <div className="flex flex-col gap-6">
        <form className="card flex flex-col gap-4" onSubmit={submit}>
          <label className="flex flex-col gap-1 text-sm">
            <span className="font-medium">Customers file (CSV, UTF-8, a header line)</span>
            <input
              type="file"
              name="file"
              accept=".csv,text/csv"
              required
              onChange={(event) => {
                setFile(event.target.files?.[0] ?? null);
                setDryRun(null);
                setKeys({ dry: newIdempotencyKey(), commit: newIdempotencyKey() });
              }}
            />
          </label>
          <p className="text-sm text-neutral-600 dark:text-neutral-300">
            Columns:{" "}
            <code className="break-words">{columns.join(", ")}</code>. Required: legacy_id, email, type (Personal or
            Business), country (two letters); first_name and last_name for Personal, company_name for Business.
          </p>
          {tryIt.isError ? <Alert title="The file was not read">{errorText(tryIt.error)}</Alert> : null}
          <div>
            <SubmitButton pending={tryIt.isPending} pendingLabel="Reading the file…" className="btn-primary">
              Dry run
            </SubmitButton>
          </div>
        </form>
        {dryRun
          ? (
            <section aria-labelledby="dry-run-heading" className="flex flex-col gap-4">
              <h2 id="dry-run-heading" className="text-xl font-semibold">Dry run of {dryRun.file_name}</h2>
              <RunView key={dryRun.id} initial={dryRun} />
              {commit.isError ? <Alert title="The file was not committed">{errorText(commit.error)}</Alert> : null}
              <div>
                <BusyButton
                  type="button"
                  className="btn-primary"
                  disabled={!hydrated || !file || dryRun.counts.created === 0}
                  busy={commit.isPending}
                  onClick={() => file && commit.mutate(file)}
                >
                  {commit.isPending ? "Committing…" : `Commit: create ${dryRun.counts.created} customers`}
                </BusyButton>
              </div>
            </section>
          )
          : null}
      </div>
      <LatestRuns initial={runs} />
    </div>
  );
}

export default withQueries(ConsoleMigration);
