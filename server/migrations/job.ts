import { and, eq, isNotNull, isNull } from "drizzle-orm";
import { z } from "zod";
import { migrationRows, migrationRuns } from "../../db/schema-migrations.ts";
import { users } from "../../db/schema.ts";
import type { Tx } from "../../db/sql.ts";
import { audit } from "../audit.ts";
import { defineJob, type JobContext, letOtherWorkIn, PermanentJobFailure } from "../jobs/define.ts";
import { log } from "../log.ts";
import { migrationWelcome } from "./email.tsx";

/** How long a migrated customer's set-password link works: a week, not the reset link's hour. */
export const MIGRATION_LINK_DAYS = 7;

/** Customers made in one step (one commit), and emailed between two progress reports. */
const BATCH = 200;

/**
 * Creates a committed run's customers and emails each a link to choose a password (decision 049).
 * Customers are made in steps of BATCH lines, each step exactly once (decision 032); a line whose
 * email or legacy id was taken since the upload is skipped then, not created. Each email is marked
 * begun before it is handed to the mailer and sent after: a job resumed after a crash between the
 * two does not send it again and reports it as in doubt, so nobody is mailed twice.
 */
export const migrationJob = defineJob("migrations.commit", {
  payload: z.object({ runId: z.number().int().positive() }),
  maxAttempts: 5,
  retry: { baseMs: 5_000, capMs: 60_000 },
  run: async ({ runId }, ctx) => {
    const [run] = await ctx.db.select().from(migrationRuns).where(eq(migrationRuns.id, runId));
    if (!run) throw new PermanentJobFailure("This migration run no longer exists.");
    if (run.finishedAt) return { run_id: runId };
    const planned = await ctx.db.select({ id: migrationRows.id }).from(migrationRows)
      .where(and(eq(migrationRows.runId, runId), eq(migrationRows.outcome, "created")))
      .orderBy(migrationRows.line);
    const total = planned.length * 2;
    for (let i = 0; i < planned.length; i += BATCH) {
      ctx.signal.throwIfAborted();
      await ctx.step(`create ${i}`, (tx) => createCustomers(tx, run.createdBy, planned.slice(i, i + BATCH), ctx.now()));
      await ctx.progress(Math.min(i + BATCH, planned.length), total, "Creating the customers");
    }
    for (let i = 0; i < planned.length; i += BATCH) {
      ctx.signal.throwIfAborted();
      await emailCustomers(ctx, planned.slice(i, i + BATCH).map((row) => row.id));
      await ctx.progress(planned.length + Math.min(i + BATCH, planned.length), total, "Emailing the customers");
    }
    await ctx.step(
      "finish",
      (tx) => tx.update(migrationRuns).set({ finishedAt: ctx.now() }).where(eq(migrationRuns.id, runId)),
    );
    return { run_id: runId };
  },
});

async function createCustomers(
  tx: Tx,
  adminId: number,
  batch: { id: number }[],
  now: Date,
): Promise<number> {
  let made = 0;
  for (const { id } of batch) {
    await letOtherWorkIn();
    const [row] = await tx.select().from(migrationRows).where(eq(migrationRows.id, id));
    if (!row || row.userId !== null || row.outcome !== "created") continue;
    const skip = (field: string, reason: string) =>
      tx.update(migrationRows).set({ outcome: "skipped", field, reason }).where(eq(migrationRows.id, id));
    // Taken since the upload (another run, a registration): checked again now, under the write lock.
    const [taken] = await tx.select({ id: users.id }).from(users).where(eq(users.username, row.email!));
    if (taken) {
      await skip("email", "email is the sign-in of someone here already (a customer, or one of our team).");
      continue;
    }
    const [migrated] = await tx.select({ id: migrationRows.id }).from(migrationRows)
      .where(and(eq(migrationRows.legacyId, row.legacyId!), isNotNull(migrationRows.userId)));
    if (migrated) {
      await skip("legacy_id", `legacy_id ${row.legacyId} was migrated already.`);
      continue;
    }
    const type = row.data?.type === "Business" ? "Business" : "Personal";
    // Validated: the only way in is the emailed link, which proves the address. No password until
    // the customer chooses one; no profile, identity check or account: they give those as every
    // customer does (decision 049), their profile form filled in from the file.
    const [user] = await tx.insert(users).values({ username: row.email!, type, validated: true, createdAt: now })
      .returning({ id: users.id });
    await tx.update(migrationRows).set({ userId: user.id }).where(eq(migrationRows.id, id));
    await audit(tx, {
      actor: adminId,
      subject: user.id,
      action: "migration.customer",
      before: null,
      after: { run: row.runId, line: row.line, legacy_id: row.legacyId, email: row.email },
    }, now);
    made++;
  }
  return made;
}

async function emailCustomers(ctx: JobContext, rowIds: number[]): Promise<void> {
  const { verifications, mailer } = ctx.deps.services;
  for (const id of rowIds) {
    await letOtherWorkIn();
    const [row] = await ctx.db.select().from(migrationRows).where(eq(migrationRows.id, id));
    // Not created (skipped when its turn came), mailed, or in doubt: nothing to send.
    if (!row?.userId || row.mailBegunAt) continue;
    const begun = await ctx.db.update(migrationRows).set({ mailBegunAt: ctx.now() })
      .where(and(eq(migrationRows.id, id), isNull(migrationRows.mailBegunAt))).returning({ id: migrationRows.id });
    if (begun.length === 0) continue;
    const secret = await verifications.issue(row.userId, "password-reset", MIGRATION_LINK_DAYS * 24 * 60 * 60 * 1000);
    const link = `${ctx.deps.config.publicUrl}/forgot?token=${encodeURIComponent(secret)}&username=${
      encodeURIComponent(row.email!)
    }`;
    const sent = await mailer.send({
      to: row.email!,
      userId: row.userId,
      template: "migration-welcome",
      rendered: migrationWelcome({ link, days: MIGRATION_LINK_DAYS }),
    });
    if (sent.status === "failed") {
      log.warn(`migrations: email ${sent.id} of run ${row.runId} failed`, { email_id: sent.id });
    }
    await ctx.db.update(migrationRows).set({ mailedAt: ctx.now() }).where(eq(migrationRows.id, id));
  }
}
