import { and, count, desc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { jobs } from "../../db/schema-jobs.ts";
import { type MigrationOutcome, migrationRows, migrationRuns } from "../../db/schema-migrations.ts";
import { users } from "../../db/schema.ts";
import type { Tx } from "../../db/sql.ts";
import { audit } from "../audit.ts";
import { NotFound } from "../errors.ts";
import { enqueue } from "../jobs/queue.ts";
import { checkLine, readMigrationFile } from "./file.ts";
import { migrationJob } from "./job.ts";

/** Customer migrations (decision 049): a file tried as a dry run, or committed and done by a job. */

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** SQLite takes at most 32,766 values in one statement: rows go in by this many. */
const CHUNK = 500;

function chunks<T>(items: T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export interface PlannedRow {
  line: number;
  legacyId: string | null;
  email: string | null;
  outcome: MigrationOutcome;
  field: string | null;
  reason: string | null;
  data: Record<string, string> | null;
}

/**
 * What each line of the file would do now: refused (the column at fault and why), skipped as a
 * duplicate (a customer with that email exists, that legacy id was migrated already, or an earlier
 * line of the file has the same email or legacy id), or created.
 */
export async function planMigration(db: Database | Tx, csv: string, now: Date): Promise<PlannedRow[]> {
  const today = now.toISOString().slice(0, 10);
  const verdicts = readMigrationFile(csv).map((line) => ({ line: line.line, verdict: checkLine(line, today) }));
  const emails = verdicts.flatMap(({ verdict }) => verdict.ok ? [verdict.email] : []);
  const legacyIds = verdicts.flatMap(({ verdict }) => verdict.ok ? [verdict.legacyId] : []);
  const known = new Set<string>();
  const migrated = new Set<string>();
  for (const part of chunks(emails)) {
    const found = await db.select({ username: users.username }).from(users).where(inArray(users.username, part));
    for (const row of found) known.add(row.username);
  }
  for (const part of chunks(legacyIds)) {
    const found = await db.select({ legacyId: migrationRows.legacyId }).from(migrationRows)
      .where(and(inArray(migrationRows.legacyId, part), isNotNull(migrationRows.userId)));
    for (const row of found) migrated.add(row.legacyId!);
  }
  const firstEmail = new Map<string, number>();
  const firstLegacy = new Map<string, number>();
  return verdicts.map(({ line, verdict }): PlannedRow => {
    if (!verdict.ok) {
      return { line, ...verdict, outcome: "refused", data: null };
    }
    const { legacyId, email } = verdict;
    const skip = (field: string, reason: string): PlannedRow => ({
      line,
      legacyId,
      email,
      outcome: "skipped",
      field,
      reason,
      data: null,
    });
    if (migrated.has(legacyId)) return skip("legacy_id", `legacy_id ${legacyId} was migrated already.`);
    if (known.has(email)) {
      return skip("email", "email is the sign-in of someone here already (a customer, or one of our team).");
    }
    if (firstLegacy.has(legacyId)) {
      return skip("legacy_id", `legacy_id is the same as on line ${firstLegacy.get(legacyId)}.`);
    }
    if (firstEmail.has(email)) return skip("email", `email is the same as on line ${firstEmail.get(email)}.`);
    firstLegacy.set(legacyId, line);
    firstEmail.set(email, line);
    return { line, legacyId, email, outcome: "created", field: null, reason: null, data: verdict.data };
  });
}

export interface MigrationUpload {
  adminId: number;
  csv: string;
  fileName: string;
  dryRun: boolean;
}

/**
 * Stores a run with what each line does, audited; a committed run also queues the job that
 * creates its customers and emails them, in the same transaction (so a run is never left without
 * its job, nor a job without its run). `store` keeps the answer with it (Idempotency-Key).
 */
export async function uploadMigration(
  db: Database,
  upload: MigrationUpload,
  now: Date,
  store: (tx: Tx, answer: MigrationRunView) => Promise<void>,
): Promise<MigrationRunView> {
  const planned = await planMigration(db, upload.csv, now);
  const runId = await db.transaction(async (tx) => {
    const [run] = await tx.insert(migrationRuns).values({
      dryRun: upload.dryRun,
      fileName: upload.fileName,
      createdBy: upload.adminId,
      createdAt: now,
      finishedAt: upload.dryRun ? now : null,
    }).returning({ id: migrationRuns.id });
    for (const part of chunks(planned)) {
      await tx.insert(migrationRows).values(part.map((row) => ({ ...row, runId: run.id })));
    }
    const counts = countsOf(planned);
    if (!upload.dryRun) {
      const { id: jobId } = await enqueue(tx, migrationJob, { runId: run.id }, {
        createdBy: upload.adminId,
        uniqueKey: `migration:${run.id}`,
        now,
      });
      await tx.update(migrationRuns).set({ jobId }).where(eq(migrationRuns.id, run.id));
    }
    await audit(tx, {
      actor: upload.adminId,
      action: upload.dryRun ? "migration.dry-run" : "migration.commit",
      before: null,
      after: { run: run.id, file: upload.fileName, ...counts },
    }, now);
    await store(tx, await runView(tx, run.id));
    return run.id;
  });
  return await runView(db, runId);
}

function countsOf(rows: { outcome: MigrationOutcome }[]) {
  const counts = { total: rows.length, created: 0, skipped: 0, refused: 0 };
  for (const row of rows) counts[row.outcome]++;
  return counts;
}

export interface MigrationRunView {
  id: number;
  dry_run: boolean;
  file_name: string;
  created_at: string;
  created_by: string;
  finished_at: string | null;
  status: "dry run" | "queued" | "running" | "done" | "failed";
  counts: { total: number; created: number; skipped: number; refused: number; emailed: number; in_doubt: number };
  progress: { done: number; total: number; message: string | null } | null;
  error: string | null;
}

type RunJoin = {
  run: typeof migrationRuns.$inferSelect;
  by: string;
  job: typeof jobs.$inferSelect | null;
};

async function runsWhere(db: Database | Tx, where: ReturnType<typeof eq> | undefined, limit: number, offset = 0) {
  return await db.select({ run: migrationRuns, by: users.username, job: jobs }).from(migrationRuns)
    .innerJoin(users, eq(users.id, migrationRuns.createdBy))
    .leftJoin(jobs, eq(jobs.id, migrationRuns.jobId))
    .where(where).orderBy(desc(migrationRuns.id)).limit(limit).offset(offset);
}

async function countsFor(db: Database | Tx, runIds: number[]) {
  const rows = runIds.length === 0 ? [] : await db.select({
    runId: migrationRows.runId,
    outcome: migrationRows.outcome,
    n: count(),
    emailed: sql<number>`sum(${migrationRows.mailedAt} IS NOT NULL)`,
    inDoubt: sql<number>`sum(${migrationRows.mailBegunAt} IS NOT NULL AND ${migrationRows.mailedAt} IS NULL)`,
  }).from(migrationRows).where(inArray(migrationRows.runId, runIds))
    .groupBy(migrationRows.runId, migrationRows.outcome);
  const byRun = new Map<number, MigrationRunView["counts"]>();
  for (const id of runIds) byRun.set(id, { total: 0, created: 0, skipped: 0, refused: 0, emailed: 0, in_doubt: 0 });
  for (const row of rows) {
    const counts = byRun.get(row.runId)!;
    counts[row.outcome] += row.n;
    counts.total += row.n;
    counts.emailed += Number(row.emailed ?? 0);
    counts.in_doubt += Number(row.inDoubt ?? 0);
  }
  return byRun;
}

function viewOf({ run, by, job }: RunJoin, counts: MigrationRunView["counts"]): MigrationRunView {
  const status: MigrationRunView["status"] = run.dryRun
    ? "dry run"
    : run.finishedAt
    ? "done"
    : job?.status === "failed"
    ? "failed"
    : job?.status === "running"
    ? "running"
    : "queued";
  return {
    id: run.id,
    dry_run: run.dryRun,
    file_name: run.fileName,
    created_at: run.createdAt.toISOString(),
    created_by: by,
    finished_at: iso(run.finishedAt),
    status,
    counts,
    progress: job && job.progressTotal !== null
      ? { done: job.progressDone ?? 0, total: job.progressTotal, message: job.progressMessage }
      : null,
    error: job?.status === "failed" ? job.error : null,
  };
}

const NO_RUN = "There is no such migration run.";

export async function runView(db: Database | Tx, id: number): Promise<MigrationRunView> {
  const [found] = await runsWhere(db, eq(migrationRuns.id, id), 1);
  if (!found) throw new NotFound(NO_RUN);
  return viewOf(found, (await countsFor(db, [id])).get(id)!);
}

/** The runs, newest first, a page at a time. */
export async function listMigrationRuns(db: Database, page: { page: number; per_page: number }) {
  const found = await runsWhere(db, undefined, page.per_page, (page.page - 1) * page.per_page);
  const counts = await countsFor(db, found.map((f) => f.run.id));
  const [{ total }] = await db.select({ total: count() }).from(migrationRuns);
  return { items: found.map((f) => viewOf(f, counts.get(f.run.id)!)), page: page.page, per_page: page.per_page, total };
}

/** A run with a page of its rows in file order, only those of one outcome when asked. */
export async function migrationRunWithRows(
  db: Database,
  id: number,
  query: { page: number; per_page: number; outcome?: MigrationOutcome },
) {
  const run = await runView(db, id);
  const where = and(
    eq(migrationRows.runId, id),
    query.outcome ? eq(migrationRows.outcome, query.outcome) : undefined,
  );
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(migrationRows).where(where).orderBy(migrationRows.line).limit(query.per_page)
      .offset((query.page - 1) * query.per_page),
    db.select({ total: count() }).from(migrationRows).where(where),
  ]);
  return {
    ...run,
    rows: {
      items: rows.map((row) => ({
        line: row.line,
        legacy_id: row.legacyId,
        email: row.email,
        outcome: row.outcome,
        field: row.field,
        reason: row.reason,
        customer_id: row.userId,
        mail: row.mailedAt ? "sent" as const : row.mailBegunAt ? "in doubt" as const : null,
      })),
      page: query.page,
      per_page: query.per_page,
      total,
    },
  };
}
