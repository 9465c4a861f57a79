import { and, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { bulkEmailRecipients, bulkEmails } from "../../db/schema-bulkemails.ts";
import { defineJob, type JobContext, PermanentJobFailure } from "../jobs/define.ts";
import { log } from "../log.ts";
import { mergeValues, recipientsData } from "./recipients.ts";
import { personalise, renderBulkEmail, type RenderedBulkEmail } from "./template.tsx";
import { unsubscribeToken, unsubscribeUrl } from "./unsubscribe.ts";

/** Mails handed to SMTP at once within a batch (the mailer's pool keeps as many connections). */
const PARALLEL = 10;

/**
 * A batch is about a quarter of a second of mail at the throttle (at least 10, at most 100): claims
 * are commits, and jobs commit some 25-60 times a second on a busy machine, so one claim per mail
 * could never reach 200 mails a second. It is also the most a crash can leave in doubt.
 */
export const batchSize = (rate: number) => Math.max(10, Math.min(100, Math.ceil(rate / 4)));

/**
 * Sends a bulk email to its recipients (decision 050), at most once each. A batch of pending
 * recipients is claimed (marked `sending`) in one step, which holds the job's lease, before any of
 * them is handed to SMTP; the results are recorded after. A job resumed after a crash finds the
 * claimed ones still `sending`: they may or may not have been mailed, so they become `in doubt`
 * and are never sent again (at most once: for marketing mail, a missed mail is better than a
 * second one). Who unsubscribed by the time their batch is claimed is skipped.
 */
export const bulkEmailJob = defineJob("bulkemails.send", {
  payload: z.object({ bulkEmailId: z.number().int().positive() }),
  maxAttempts: 8,
  retry: { baseMs: 5_000, capMs: 300_000 },
  run: async ({ bulkEmailId }, ctx) => {
    const [email] = await ctx.db.select().from(bulkEmails).where(eq(bulkEmails.id, bulkEmailId));
    if (!email) throw new PermanentJobFailure("This bulk email no longer exists.");
    if (email.finishedAt) return { bulk_email_id: bulkEmailId };
    const rate = email.ratePerSecond ?? ctx.deps.config.bulkEmailRate ?? 50;
    const size = batchSize(rate);
    const settled = await ctx.db.update(bulkEmailRecipients).set({ state: "in doubt", updatedAt: ctx.now() })
      .where(and(eq(bulkEmailRecipients.bulkEmailId, bulkEmailId), eq(bulkEmailRecipients.state, "sending")))
      .returning({ id: bulkEmailRecipients.id });
    if (settled.length) {
      log.warn(`bulk emails: ${settled.length} mails of bulk email ${bulkEmailId} are in doubt after a crash`, {
        bulk_email_id: bulkEmailId,
      });
    }
    const rendered = await renderBulkEmail(email);
    const [{ total }] = await ctx.db.select({ total: sql<number>`count(*)` }).from(bulkEmailRecipients)
      .where(eq(bulkEmailRecipients.bulkEmailId, bulkEmailId));
    for (;;) {
      ctx.signal.throwIfAborted();
      const started = performance.now();
      const [next] = await ctx.db.select({ id: bulkEmailRecipients.id }).from(bulkEmailRecipients)
        .where(and(eq(bulkEmailRecipients.bulkEmailId, bulkEmailId), eq(bulkEmailRecipients.state, "pending")))
        .orderBy(bulkEmailRecipients.id).limit(1);
      if (!next) break;
      // A step for its commit that holds the lease (a runner that lost the job claims nothing), but
      // never replayed: the recipients' states are the record, and a recorded claim given again to
      // a later attempt would send its batch a second time. Hence a key of its own for each claim.
      const claimed = await ctx.step(
        `claim from ${next.id} (${crypto.randomUUID()})`,
        (tx) => claim(tx, bulkEmailId, next.id, size, ctx.now()),
      );
      await sendBatch(ctx, bulkEmailId, rendered, claimed);
      const [{ left }] = await ctx.db.select({ left: sql<number>`count(*)` }).from(bulkEmailRecipients)
        .where(and(eq(bulkEmailRecipients.bulkEmailId, bulkEmailId), eq(bulkEmailRecipients.state, "pending")));
      await ctx.progress(total - left, total, "Sending");
      // The throttle: a batch takes at least its share of a second at the configured rate.
      const wait = (claimed.length * 1000) / rate - (performance.now() - started);
      if (wait > 0) await sleep(wait, ctx.signal);
    }
    await ctx.step(
      "finish",
      (tx) => tx.update(bulkEmails).set({ finishedAt: ctx.now() }).where(eq(bulkEmails.id, bulkEmailId)),
    );
    return { bulk_email_id: bulkEmailId };
  },
});

/** Claims up to `size` pending recipients from `from` on: those unsubscribed are skipped, the rest marked sending. */
async function claim(
  tx: Parameters<Parameters<JobContext["step"]>[1]>[0],
  bulkEmailId: number,
  from: number,
  size: number,
  now: Date,
) {
  const rows = await tx.all<{ id: number; user_id: number; email: string; out: number }>(sql`
    SELECT r.id, r.user_id, r.email, EXISTS (SELECT 1 FROM marketing_consents m WHERE m.user_id = r.user_id) AS out
    FROM bulk_email_recipients r
    WHERE r.bulk_email_id = ${bulkEmailId} AND r.state = 'pending' AND r.id >= ${from}
    ORDER BY r.id LIMIT ${size}`);
  const out = rows.filter((r) => r.out).map((r) => r.id);
  const sending = rows.filter((r) => !r.out);
  if (out.length) {
    await tx.update(bulkEmailRecipients).set({ state: "unsubscribed", updatedAt: now })
      .where(inArray(bulkEmailRecipients.id, out));
  }
  if (sending.length) {
    await tx.update(bulkEmailRecipients).set({ state: "sending", updatedAt: now })
      .where(inArray(bulkEmailRecipients.id, sending.map((r) => r.id)));
  }
  return sending.map((r) => ({ id: r.id, userId: r.user_id, email: r.email }));
}

type Claimed = Awaited<ReturnType<typeof claim>>;

/**
 * Mails a claimed batch, then records each result in one transaction. A recipient whose mail the
 * server refused is `failed` with the reason; when every mail of the batch failed (the server is
 * down), they are put back as pending and the attempt fails, to be retried later.
 */
async function sendBatch(ctx: JobContext, bulkEmailId: number, rendered: RenderedBulkEmail, batch: Claimed) {
  if (batch.length === 0) return;
  const { mailer, secretBox } = ctx.deps.services;
  const data = await recipientsData(ctx.db, batch.map((r) => r.userId));
  const results: { id: number; status: "sent" | "stored" | "failed"; error: string | null }[] = [];
  let next = 0;
  const worker = async () => {
    while (next < batch.length) {
      const recipient = batch[next++];
      const person = data.get(recipient.userId) ??
        {
          userId: recipient.userId,
          email: recipient.email,
          type: "Personal" as const,
          profile: null,
          accountRef: null,
        };
      const link = unsubscribeUrl(
        ctx.deps.config.publicUrl,
        await unsubscribeToken(secretBox, recipient.userId, bulkEmailId),
      );
      const mail = personalise(rendered, mergeValues({ ...person, email: recipient.email }, link));
      const delivery = await mailer.deliver({
        to: recipient.email,
        ...mail,
        headers: { "List-Unsubscribe": `<${link}>` },
      });
      results.push({ id: recipient.id, ...delivery });
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, batch.length) }, worker));
  const now = ctx.now();
  const failed = results.filter((r) => r.status === "failed");
  if (failed.length === results.length) {
    await ctx.db.update(bulkEmailRecipients).set({ state: "pending", updatedAt: now })
      .where(and(inArray(bulkEmailRecipients.id, batch.map((r) => r.id)), eq(bulkEmailRecipients.state, "sending")));
    throw new Error(`The mail server refused every mail of a batch (${failed[0].error}): trying again later.`);
  }
  await ctx.db.transaction(async (tx) => {
    // From sending, or from in doubt when another runner gave up on this one meanwhile: it was sent.
    const delivered = results.filter((r) => r.status !== "failed").map((r) => r.id);
    if (delivered.length) {
      await tx.update(bulkEmailRecipients).set({ state: "sent", error: null, updatedAt: now }).where(and(
        inArray(bulkEmailRecipients.id, delivered),
        inArray(bulkEmailRecipients.state, ["sending", "in doubt"]),
      ));
    }
    for (const result of failed) {
      await tx.update(bulkEmailRecipients).set({ state: "failed", error: result.error, updatedAt: now })
        .where(and(eq(bulkEmailRecipients.id, result.id), inArray(bulkEmailRecipients.state, ["sending", "in doubt"])));
    }
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}
