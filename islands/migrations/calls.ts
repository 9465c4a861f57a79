/** The customer migration calls the console's islands make, typed by their contracts (lib/contracts/migrations.ts). */
import { IDEMPOTENCY_HEADER } from "../../lib/api-types.ts";
import type * as migrations from "../../lib/contracts/migrations.ts";
import { type AnswerOf, ApiCallError, call, FALLBACK_ERROR } from "../lib/api.ts";
import { read } from "../lib/query-client.tsx";

export const getMigration = call<typeof migrations.getMigration>("GET", "/console/migrations/:id");
export const listMigrations = call<typeof migrations.listMigrations>("GET", "/console/migrations");

export type MigrationRun = AnswerOf<typeof migrations.uploadMigration>;
export type MigrationRunWithRows = AnswerOf<typeof migrations.getMigration>;
export type MigrationRunPage = AnswerOf<typeof migrations.listMigrations>;
export type Outcome = MigrationRunWithRows["rows"]["items"][number]["outcome"];

/**
 * The migration runs: the latest (GET console/migrations), and each (GET console/migrations/{id}) by
 * run, page and outcome. An upload invalidates `all`, so the latest runs show it.
 */
export const migrationKeys = {
  all: ["migrations"] as const,
  latest: ["migrations", "latest"] as const,
  run: (id: number, page: number, outcome: Outcome | "") => ["migrations", id, page, outcome] as const,
};

export const ROWS_PER_PAGE = 50;

export const migrationQuery = (id: number, page: number, outcome: Outcome | "") =>
  read(migrationKeys.run(id, page, outcome), getMigration, {
    params: { id },
    query: { page: String(page), per_page: String(ROWS_PER_PAGE), ...(outcome ? { outcome } : {}) },
  });

/** The latest runs, newest first: the first page, as /console/migration lists them. */
export const LATEST_RUNS = 20;
export const latestRunsQuery = () =>
  read(migrationKeys.latest, listMigrations, { query: { page: "1", per_page: String(LATEST_RUNS) } });

/**
 * POST console/migrations: the file is the body, as text/csv, which the islands' JSON `api.send`
 * does not send; failures come back as the same ApiCallError.
 */
export async function uploadMigration(
  file: File,
  dryRun: boolean,
  idempotencyKey: string,
): Promise<MigrationRun> {
  const query = new URLSearchParams({ dry_run: String(dryRun), file_name: file.name.slice(0, 200) });
  let response: Response;
  let payload: { body?: MigrationRun; error?: string; message?: string; fields?: Record<string, string> } = {};
  try {
    response = await fetch(`/api/console/migrations?${query}`, {
      method: "POST",
      headers: { "Content-Type": "text/csv", Accept: "application/json", [IDEMPOTENCY_HEADER]: idempotencyKey },
      body: file,
      credentials: "same-origin",
    });
    payload = await response.json().catch(() => ({}));
  } catch (err) {
    throw Object.assign(new ApiCallError(0, FALLBACK_ERROR, "Network error"), { cause: err });
  }
  if (!response.ok) {
    throw new ApiCallError(
      response.status,
      payload.error || FALLBACK_ERROR,
      payload.message || response.statusText,
      payload.fields,
    );
  }
  return payload.body!;
}
