import { and, count, desc, eq, gt, inArray, isNull, or } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { jobs } from "../../db/schema-jobs.ts";
import { statements } from "../../db/schema-statements.ts";
import { accounts } from "../../db/schema.ts";
import type { Tx } from "../../db/sql.ts";
import type { CustomerJob } from "../../lib/contracts/jobs.ts";
import type { StatementRequest, StatementView } from "../../lib/contracts/statements.ts";
import { Conflict, InvalidFields, NotFound, TooMany } from "../errors.ts";
import { enqueue } from "../jobs/queue.ts";
import { MEDIA_TYPES, STATEMENT_KEPT_MS, statementJob } from "./job.ts";

/** The longest period one statement covers: a year, leap day included. */
export const MAX_PERIOD_DAYS = 366;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The most statements one account may have waiting or being made at once (decision 074): each is a
 * job that may draw a year's PDF, so a customer (a viewer included) cannot fill the queue, while
 * one asking for a few currencies or periods together is not stopped.
 */
export const STATEMENTS_AT_ONCE = 3;

/** The 429 past STATEMENTS_AT_ONCE: why, and when to ask again. */
export const TOO_MANY_STATEMENTS = `Your account already has ${STATEMENTS_AT_ONCE} statements being made. ` +
  "Ask for another once one of them is ready: the list of statements shows each as it is made.";

type StatementRow = typeof statements.$inferSelect;

const iso = (at: Date | null) => at?.toISOString() ?? null;

function stateOf(row: StatementRow, jobStatus: string | null, now: Date): StatementView["state"] {
  if (row.readyAt) return row.purgedAt || (row.expiresAt && row.expiresAt <= now) ? "expired" : "ready";
  return jobStatus === "failed" || jobStatus === "cancelled" ? "failed" : "preparing";
}

function viewOf(row: StatementRow, jobStatus: string | null, now: Date): StatementView {
  const state = stateOf(row, jobStatus, now);
  return {
    id: row.id,
    currency: row.currency,
    from: row.periodFrom,
    to: row.periodTo,
    format: row.format,
    state,
    job_id: row.jobId,
    file_name: row.fileName,
    file_url: state === "ready" ? `/api/account/statements/${row.id}/file` : null,
    line_count: row.lineCount,
    size_bytes: row.sizeBytes,
    created_at: row.createdAt.toISOString(),
    ready_at: iso(row.readyAt),
    expires_at: iso(row.expiresAt),
  };
}

/** The period's days checked against each other and today; every problem named by its field. */
function checkPeriod(request: StatementRequest, now: Date): { start: Date; closingAt: Date } {
  const start = new Date(`${request.from}T00:00:00.000Z`);
  const endOfTo = new Date(new Date(`${request.to}T00:00:00.000Z`).getTime() + DAY_MS);
  const today = now.toISOString().slice(0, 10);
  const problems: Record<string, string> = {};
  if (request.from > today) problems.from = "The period cannot start after today.";
  if (request.to > today) problems.to = "The period cannot end after today.";
  if (request.to < request.from) problems.to = "The period must end on or after the day it starts.";
  else if ((endOfTo.getTime() - start.getTime()) / DAY_MS > MAX_PERIOD_DAYS) {
    problems.to = `A statement covers at most ${MAX_PERIOD_DAYS} days: ask for a shorter period.`;
  }
  if (Object.keys(problems).length > 0) throw new InvalidFields("Check the statement's period.", problems);
  // A period that runs to today closes now, so that the statement, whenever the job makes it,
  // shows the balances as they were when it was asked for.
  return { start, closingAt: endOfTo < now ? endOfTo : now };
}

/**
 * Records the statement and queues the job that makes it, in one transaction (decision 032: the
 * statement exists with its job or not at all). `alongside` runs in that transaction.
 */
export async function requestStatement(
  db: Database,
  who: { accountId: number; userId: number },
  request: StatementRequest,
  now: Date,
  alongside: (tx: Tx, answer: { job: CustomerJob; statement: StatementView }) => Promise<void> = async () => {},
): Promise<{ job: CustomerJob; statement: StatementView }> {
  const { closingAt } = checkPeriod(request, now);
  return await db.transaction(async (tx) => {
    // Counted in the transaction that adds the statement: one writer at a time, so two requests
    // at once cannot both find room for one.
    const [{ waiting }] = await tx.select({ waiting: count() }).from(statements)
      .innerJoin(jobs, eq(jobs.id, statements.jobId))
      .where(
        and(
          eq(statements.accountId, who.accountId),
          isNull(statements.readyAt),
          inArray(jobs.status, ["queued", "running"]),
        ),
      );
    if (waiting >= STATEMENTS_AT_ONCE) throw new TooMany(TOO_MANY_STATEMENTS);
    const [account] = await tx.select({ ref: accounts.accountRef }).from(accounts).where(
      eq(accounts.id, who.accountId),
    );
    const fileName = `statement-${account.ref}-${
      request.currency ?? "all"
    }-${request.from}-to-${request.to}.${request.format}`;
    const [row] = await tx.insert(statements).values({
      accountId: who.accountId,
      requestedBy: who.userId,
      currency: request.currency,
      periodFrom: request.from,
      periodTo: request.to,
      closingAt,
      format: request.format,
      fileName,
      createdAt: now,
    }).returning();
    const { id: jobId } = await enqueue(tx, statementJob, { statementId: row.id }, {
      accountId: who.accountId,
      createdBy: who.userId,
      now,
    });
    await tx.update(statements).set({ jobId }).where(eq(statements.id, row.id));
    const job: CustomerJob = {
      id: jobId,
      kind: statementJob.kind,
      status: "queued",
      progress: null,
      result: null,
      error: null,
      created_at: now.toISOString(),
      started_at: null,
      finished_at: null,
    };
    const answer = { job, statement: viewOf({ ...row, jobId }, "queued", now) };
    await alongside(tx, answer);
    return answer;
  });
}

/** The account's statements still worth showing: being made, failed, or downloadable (7 days). */
export async function listStatements(db: Database, accountId: number, now: Date): Promise<StatementView[]> {
  const since = new Date(now.getTime() - STATEMENT_KEPT_MS);
  const rows = await db.select({ statement: statements, jobStatus: jobs.status }).from(statements)
    .leftJoin(jobs, eq(jobs.id, statements.jobId))
    .where(
      and(
        eq(statements.accountId, accountId),
        or(gt(statements.expiresAt, now), and(isNull(statements.readyAt), gt(statements.createdAt, since))),
      ),
    )
    .orderBy(desc(statements.id)).limit(50);
  return rows.map(({ statement, jobStatus }) => viewOf(statement, jobStatus, now));
}

/** Thrown for a statement past its 7 days: the call answers 410 with this message. */
export class StatementExpired extends Error {
  override name = "StatementExpired";
}

/** The statement's file, for its own account only; another account's is not found. */
export async function statementFile(db: Database, accountId: number, id: number, now: Date) {
  const [row] = await db.select().from(statements).where(
    and(eq(statements.id, id), eq(statements.accountId, accountId)),
  );
  if (!row) throw new NotFound("There is no such statement.");
  if (!row.readyAt) throw new Conflict("This statement is still being made: download it once it is ready.");
  if (row.purgedAt || !row.content || (row.expiresAt && row.expiresAt <= now)) {
    throw new StatementExpired(
      `This statement expired on ${
        row.expiresAt!.toISOString().slice(0, 16).replace("T", " ")
      } UTC: files are kept for 7 days. Ask for a new statement on the Reports page.`,
    );
  }
  return { content: new Uint8Array(row.content), name: row.fileName, mediaType: MEDIA_TYPES[row.format] };
}
