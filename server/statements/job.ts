import { and, eq, isNotNull, lte } from "drizzle-orm";
import { Buffer } from "node:buffer";
import { z } from "zod";
import { accounts } from "../../db/schema.ts";
import { statements } from "../../db/schema-statements.ts";
import { defineJob, type JobContext, LeaseLost, PermanentJobFailure } from "../jobs/define.ts";
import { defineSchedule } from "../jobs/schedules.ts";
import { log } from "../log.ts";
import { statementCsv } from "./csv.ts";
import { companyOnStatement, type StatementDocument } from "./document.ts";
import { statementSections } from "./lines.ts";
import { statementPdf } from "./pdf.ts";

/** How long a statement's file stays downloadable once made (decision 037). */
export const STATEMENT_KEPT_MS = 7 * 24 * 60 * 60 * 1000;

/** The media type each format downloads as. */
export const MEDIA_TYPES = { csv: "text/csv; charset=utf-8", pdf: "application/pdf" } as const;

/**
 * Makes a statement's file (decision 037): reads its lines from the ledger up to the statement's
 * closing moment (fixed when it was asked for, so a retried job makes the same statement), draws
 * the file, reporting the lines done as progress, and stores it in one step. A job resumed after a
 * crash finds the file stored and stops; one resumed before that draws it again (nothing outside
 * the database happened meanwhile, so nothing is repeated that anyone could see).
 */
export const statementJob = defineJob("statements.generate", {
  payload: z.object({ statementId: z.number().int().positive() }),
  maxAttempts: 3,
  retry: { baseMs: 5_000, capMs: 60_000 },
  run: async ({ statementId }, ctx) => {
    try {
      return await makeStatement(statementId, ctx);
    } catch (error) {
      // A stop or a lost lease is the runner's business; a refusal already speaks to the customer.
      if (ctx.signal.aborted || error instanceof LeaseLost || error instanceof PermanentJobFailure) throw error;
      // Anything else is ours: the customer reads the job's error, so it says what to do, and the
      // cause goes to the log (as every error line: JSON, a refused query without its values).
      log.error("statement could not be made", { statement_id: statementId, attempt: ctx.attempt, error });
      throw new Error(
        "Your statement could not be made because of a problem on our side. Ask for it again; if it fails again, write to us.",
      );
    }
  },
});

async function makeStatement(statementId: number, ctx: JobContext) {
  const [row] = await ctx.db.select({ statement: statements, account: accounts }).from(statements)
    .innerJoin(accounts, eq(accounts.id, statements.accountId)).where(eq(statements.id, statementId));
  if (!row) throw new PermanentJobFailure("This statement no longer exists.");
  const { statement, account } = row;
  const answer = { statement_id: statement.id, file: `/api/account/statements/${statement.id}/file` };
  if (statement.readyAt) return answer;

  const sections = await statementSections(ctx.db, statement.accountId, statement.currency, {
    start: new Date(`${statement.periodFrom}T00:00:00.000Z`),
    end: statement.closingAt,
  });
  const total = sections.reduce((n, section) => n + section.lines.length, 0);
  await ctx.progress(0, total, "Reading your movements");
  ctx.signal.throwIfAborted();
  const doc: StatementDocument = {
    company: companyOnStatement(ctx.deps.config),
    account: { ref: account.accountRef, name: account.name },
    from: statement.periodFrom,
    to: statement.periodTo,
    closingAt: statement.closingAt,
    generatedAt: ctx.now(),
    sections,
  };
  const onRows = async (done: number) => {
    ctx.signal.throwIfAborted();
    await ctx.progress(done, total, `${done} of ${total} lines written`);
  };
  const file = statement.format === "pdf" ? await statementPdf(doc, onRows) : await statementCsv(doc, onRows);

  await ctx.step("store the file", async (tx) => {
    const readyAt = ctx.now();
    await tx.update(statements).set({
      content: Buffer.from(file),
      sizeBytes: file.byteLength,
      lineCount: total,
      readyAt,
      expiresAt: new Date(readyAt.getTime() + STATEMENT_KEPT_MS),
    }).where(eq(statements.id, statementId));
    return { size: file.byteLength };
  });
  return answer;
}

/**
 * Empties the files of statements past their 7 days (decision 037). The row stays, so that a late
 * download is told the file expired. Idempotent, so it needs no steps: an interrupted run is done
 * again whole.
 */
export const expireStatementsJob = defineJob("statements.expire", {
  payload: z.object({}),
  maxAttempts: 3,
  run: async (_payload, ctx) => {
    const now = ctx.now();
    const expired = await ctx.db.update(statements).set({ content: null, purgedAt: now }).where(
      and(isNotNull(statements.content), lte(statements.expiresAt, now)),
    );
    return { files_deleted: expired.rowsAffected };
  },
});

export const expireStatementsSchedule = defineSchedule("statements.expire", {
  pattern: "15 * * * *",
  job: expireStatementsJob,
  payload: () => ({}),
});
