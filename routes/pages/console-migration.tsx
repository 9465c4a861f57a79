import type { Context } from "hono";
import { idText } from "../../lib/contracts/common.ts";
import type { AppEnv } from "../../server/env.ts";
import { NotFound } from "../../server/errors.ts";
import { MIGRATION_COLUMNS } from "../../server/migrations/file.ts";
import { listMigrationRuns, migrationRunWithRows, runView } from "../../server/migrations/service.ts";
import { ConsoleMigration, ConsoleMigrationRun } from "../islands.ts";
import { PageTitle } from "../layouts/parts.tsx";

/** The console's customer migrations (issue 11 item 8, decision 049). */

const MOMENT = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });
const STATUS_WORDS = { "dry run": "Dry run", queued: "Waiting", running: "Running", done: "Done", failed: "Failed" };

/** /console/migration: the upload form (dry run, then commit) and the latest runs. */
export async function ConsoleMigrationPage(c: Context<AppEnv>) {
  const runs = await listMigrationRuns(c.get("db"), { page: 1, per_page: 20 });
  return (
    <section className="flex flex-col gap-8">
      <div>
        <PageTitle lead="Bring customers of the old system here from a CSV file. Try it as a dry run first: nothing is created until you commit. Each created customer is emailed a link to choose a password, then gives their details and confirms their identity like every new customer.">
          Migration
        </PageTitle>
        <ConsoleMigration columns={MIGRATION_COLUMNS} />
      </div>
      <div>
        <h2 className="mb-2 text-xl font-semibold">Latest runs</h2>
        {runs.items.length
          ? (
            <div className="overflow-x-auto rounded-xl border border-neutral-200 dark:border-neutral-800">
              <table className="w-full text-left text-sm">
                <thead className="bg-neutral-50 dark:bg-neutral-900">
                  <tr>
                    {["Run", "File", "When", "By", "Status", "Created", "Skipped", "Refused"].map((label) => (
                      <th key={label} scope="col" className="px-4 py-3 font-semibold">{label}</th>
                    ))}
                  </tr>
                </thead>
                <tbody className="divide-y divide-neutral-200 dark:divide-neutral-800">
                  {runs.items.map((run) => (
                    <tr key={run.id}>
                      <td className="px-4 py-3">
                        <a className="underline" href={`/console/migration/${run.id}`}>#{run.id}</a>
                      </td>
                      <td className="px-4 py-3 break-all">{run.file_name}</td>
                      <td className="px-4 py-3">{MOMENT.format(new Date(run.created_at))} UTC</td>
                      <td className="px-4 py-3 break-all">{run.created_by}</td>
                      <td className="px-4 py-3">{STATUS_WORDS[run.status]}</td>
                      <td className="px-4 py-3 tabular-nums">{run.counts.created}</td>
                      <td className="px-4 py-3 tabular-nums">{run.counts.skipped}</td>
                      <td className="px-4 py-3 tabular-nums">{run.counts.refused}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
          : <p className="text-neutral-600 dark:text-neutral-300">No file has been uploaded yet.</p>}
      </div>
    </section>
  );
}

/** A run's page exists only for a run that exists. */
export async function migrationRunExists(params: Record<string, string>, c: Context<AppEnv>) {
  const id = idText.safeParse(params.id);
  if (!id.success) return false;
  try {
    await runView(c.get("db"), id.data);
    return true;
  } catch (error) {
    if (error instanceof NotFound) return false;
    throw error;
  }
}

/** /console/migration/{id}: one run, its counts, its commit's progress and its lines. */
export async function ConsoleMigrationRunPage(c: Context<AppEnv>) {
  const id = idText.parse(c.req.param("id"));
  const run = await migrationRunWithRows(c.get("db"), id, { page: 1, per_page: 50 });
  return (
    <section>
      <PageTitle
        lead={`${run.file_name}, uploaded by ${run.created_by} on ${MOMENT.format(new Date(run.created_at))} UTC. ${
          run.dry_run ? "A dry run: it created nobody." : ""
        }`}
      >
        {run.dry_run ? `Migration dry run #${run.id}` : `Migration run #${run.id}`}
      </PageTitle>
      <ConsoleMigrationRun run={run} />
      <p className="mt-6">
        <a className="btn-ghost" href="/console/migration">All migration runs</a>
      </p>
    </section>
  );
}
