import type { Context } from "hono";
import { idText } from "../../lib/contracts/common.ts";
import type { AppEnv } from "../../server/env.ts";
import { NotFound } from "../../server/errors.ts";
import { MIGRATION_COLUMNS } from "../../server/migrations/file.ts";
import { listMigrationRuns, migrationRunWithRows, runView } from "../../server/migrations/service.ts";
import { LATEST_RUNS } from "../../islands/migrations/calls.ts";
import { ConsoleMigration, ConsoleMigrationRun } from "../islands.ts";
import { PageTitle } from "../layouts/parts.tsx";

/** The console's customer migrations (issue 11 item 8, decision 049). */

const MOMENT = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });

/** /console/migration: the upload form (dry run, then commit) and the latest runs (in the island: each upload adds one). */
export async function ConsoleMigrationPage(c: Context<AppEnv>) {
  const runs = await listMigrationRuns(c.get("db"), { page: 1, per_page: LATEST_RUNS });
  return (
    <section>
      <PageTitle lead="Bring customers of the old system here from a CSV file. Try it as a dry run first: nothing is created until you commit. Each created customer is emailed a link to choose a password, then gives their details and confirms their identity like every new customer.">
        Migration
      </PageTitle>
      <ConsoleMigration columns={MIGRATION_COLUMNS} runs={runs} />
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
