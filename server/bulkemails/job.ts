import { and, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { bulkEmailRecipients, bulkEmails } from "../../db/schema-bulkemails.ts";
import { emails } from "../../db/schema.ts";
import type { Tx } from "../../db/sql.ts";
import { defineJob, type JobContext, PermanentJobFailure } from "../jobs/define.ts";
import { log } from "../log.ts";
import { type HeldMail, POOL_CONNECTIONS } from "../mail/index.ts";
import { BULK_MAIL_TEMPLATE, renderingForSend } from "./mails.ts";
import { mergeValues, recipientsData } from "./recipients.ts";
import { personalise, type RenderedBulkEmail } from "./template.tsx";
import { unsubscribeToken, unsubscribeUrl } from "./unsubscribe.ts";

/** Mails handed to SMTP at once, one a connection of the mailer's pool: the most `sending` at a crash. */
export const PARALLEL = POOL_CONNECTIONS;
/** Lanes handing over a wave of WAVE each at once (sendBatch): one commits while the other's wave is out. */
const LANES = 2;
const WAVE = PARALLEL / LANES;

/**
 * A batch is about a quarter of a second of mail at the throttle (at least 10, at most 100): claims
 * are commits, and jobs commit some 25-60 times a second on a busy machine, so one claim per mail
 * could never reach 200 mails a second. A crash leaves nobody of it mailed twice or not at all (sendBatch).
 * Never more than a second's worth, though: a batch goes out at once and the throttle pauses after
 * it, so at a rate below 10 a batch of 10 would send 10 in a blink.
 */
export const batchSize = (rate: number) =>
  Math.max(Math.min(10, Math.max(1, Math.floor(rate))), Math.min(100, Math.ceil(rate / 4)));

/**
 * Sends a bulk email to its recipients (decision 050), once each, also across a crash. A batch of
 * pending recipients is claimed in one step, which holds the job's lease; it is then handed to SMTP
 * in small waves: each mail of a wave goes on the wire up to its final dot, then one commit marks
 * the wave `sending` (and records the answers of the wave before), then the dots are written. A
 * crash before the commit delivers nothing (the server discards a message without its dot) and
 * leaves them pending, to be mailed by whoever resumes the job; a job resumed after the commit finds
 * the last waves (PARALLEL recipients at most) still `sending`, delivered whole, and records them
 * sent. Recipients `in doubt` (left by the job before decision 050's amendment of 2026-11-28) are
 * not sent again unless an administrator decides so (sendToInDoubt). Who unsubscribed by the time
 * their batch is claimed is skipped.
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
    // A runner that died left its last waves `sending`: their commit came after each mail was on
    // the wire up to its final dot, and the dots went in the same turn as the commit returned, so
    // they were delivered; only the server's answer was lost (decision 050, amended 2026-11-28).
    const delivered = await ctx.db.transaction(async (tx) => {
      const rows = await tx.update(bulkEmailRecipients).set({ state: "sent", error: null, updatedAt: ctx.now() })
        .where(and(eq(bulkEmailRecipients.bulkEmailId, bulkEmailId), eq(bulkEmailRecipients.state, "sending")))
        .returning({ userId: bulkEmailRecipients.userId });
      if (rows.length) {
        // Their mails' rows, the latest of each (an older one may be in doubt from before), say so too.
        await tx.run(sql`
          UPDATE emails SET status = 'sent' WHERE status = 'in doubt' AND id IN (
            SELECT max(id) FROM emails WHERE bulk_email_id = ${bulkEmailId}
              AND user_id IN (${sql.join(rows.map((r) => sql`${r.userId}`), sql`, `)})
            GROUP BY user_id)`);
      }
      return rows.length;
    });
    if (delivered) {
      log.warn(
        `bulk emails: ${delivered} mails of bulk email ${bulkEmailId} were handed over whole before a crash: recorded as sent`,
        { bulk_email_id: bulkEmailId },
      );
    }
    const rendered = await renderingForSend(ctx.db, email);
    const [{ total }] = await ctx.db.select({ total: sql<number>`count(*)` }).from(bulkEmailRecipients)
      .where(eq(bulkEmailRecipients.bulkEmailId, bulkEmailId));
    for (;;) {
      ctx.signal.throwIfAborted();
      const started = performance.now();
      const [next] = await ctx.db.select({ id: bulkEmailRecipients.id }).from(bulkEmailRecipients)
        .where(and(eq(bulkEmailRecipients.bulkEmailId, bulkEmailId), eq(bulkEmailRecipients.state, "pending")))
        .orderBy(bulkEmailRecipients.id).limit(1);
      if (!next) {
        // Finished only if still nobody is pending in the commit that says so: an administrator may
        // have put the in-doubt recipients back meanwhile (sendToInDoubt), and this job sends them.
        const finished = await ctx.step(`finish (${crypto.randomUUID()})`, async (tx) => {
          const [waiting] = await tx.select({ id: bulkEmailRecipients.id }).from(bulkEmailRecipients)
            .where(and(eq(bulkEmailRecipients.bulkEmailId, bulkEmailId), eq(bulkEmailRecipients.state, "pending")))
            .limit(1);
          if (waiting) return false;
          await tx.update(bulkEmails).set({ finishedAt: ctx.now() }).where(eq(bulkEmails.id, bulkEmailId));
          return true;
        });
        if (finished) break;
        continue;
      }
      // A step for its commit that holds the lease (a runner that lost the job claims nothing), but
      // never replayed: the recipients' states are the record, and a recorded claim given again to
      // a later attempt would hand its batch over a second time. Hence a key of its own for each claim.
      const claimed = await ctx.step(
        `claim from ${next.id} (${crypto.randomUUID()})`,
        (tx) => claim(tx, bulkEmailId, next.id, size, ctx.now()),
      );
      const firstDots = await sendBatch(ctx, bulkEmailId, rendered, claimed);
      const [{ left }] = await ctx.db.select({ left: sql<number>`count(*)` }).from(bulkEmailRecipients)
        .where(and(eq(bulkEmailRecipients.bulkEmailId, bulkEmailId), eq(bulkEmailRecipients.state, "pending")));
      await ctx.progress(total - left, total, "Sending");
      // The throttle: a batch takes at least its share of a second at the configured rate, counted
      // from when its first mails were delivered (their dots), not from its claim: the next batch's
      // dots never come sooner than that share after this one's, however long this one took to get
      // on the wire (a first batch opens the connections and renders; a later one is quicker).
      const wait = (claimed.length * 1000) / rate - (performance.now() - (firstDots ?? started));
      if (wait > 0) await sleep(wait, ctx.signal);
    }
    return { bulk_email_id: bulkEmailId };
  },
});

/**
 * Takes up to `size` pending recipients from `from` on for the next batch: those unsubscribed are
 * marked so and skipped; the others stay pending until their wave is handed over (sendBatch), so
 * that a crash before their turn leaves them to be sent, once, by whoever resumes the job.
 */
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
  if (out.length) {
    await tx.update(bulkEmailRecipients).set({ state: "unsubscribed", updatedAt: now })
      .where(inArray(bulkEmailRecipients.id, out));
  }
  return rows.filter((r) => !r.out).map((r) => ({ id: r.id, userId: r.user_id, email: r.email }));
}

type Claimed = Awaited<ReturnType<typeof claim>>;
/** A mail's answer: `id` the recipient's, `emailId` its row in `emails` (decision 061). */
type Answer = { id: number; emailId: number; status: "sent" | "stored" | "failed"; error: string | null };

/**
 * Mails a claimed batch in waves of WAVE, over LANES lanes at once (PARALLEL mails in flight). A
 * lane hands its wave over up to the final dots (mailer.handOver), then its one commit records the
 * answers of its wave before and marks this wave `sending`, only those still pending (compare and
 * set: a runner that lost the job and the one that took it over never both deliver the same
 * recipient), then it writes the dots of the ones it marked and closes the others without theirs.
 * So whatever is `sending` at a crash was on the wire whole with its dot going out, and whatever is
 * pending was delivered to nobody (decision 050, amended 2026-11-28). A recipient whose mail the
 * server refused is `failed` with the reason; when every mail of the batch failed (the server is
 * down), they go back to pending and the attempt fails, to be retried later.
 */
async function sendBatch(
  ctx: JobContext,
  bulkEmailId: number,
  rendered: RenderedBulkEmail,
  batch: Claimed,
): Promise<number | null> {
  if (batch.length === 0) return null;
  /** When the batch's first dots were written (performance.now()): what the throttle counts from. */
  let firstDots: number | null = null;
  const { mailer, secretBox } = ctx.deps.services;
  const data = await recipientsData(ctx.db, batch.map((r) => r.userId));
  // A recipient's mail, filled before its wave's commit: that commit keeps it in `emails` (decision 061).
  const prepare = async (recipient: Claimed[number]) => {
    const person = data.get(recipient.userId) ??
      {
        userId: recipient.userId,
        email: recipient.email,
        type: "Personal" as const,
        profile: null,
        migrated: null,
        accountRef: null,
      };
    const link = unsubscribeUrl(
      ctx.deps.config.publicUrl,
      await unsubscribeToken(secretBox, recipient.userId, bulkEmailId),
    );
    const values = mergeValues({ ...person, email: recipient.email }, link);
    return { recipient, link, values, mail: personalise(rendered, values) };
  };
  type Prepared = Awaited<ReturnType<typeof prepare>>;
  const message = ({ recipient, link, mail }: Prepared) => ({
    to: recipient.email,
    ...mail,
    // RFC 8058 one-click: a mail client unsubscribes with a POST to the link, no page to open.
    headers: { "List-Unsubscribe": `<${link}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
  });
  let at = 0;
  let delivered = false;
  const failed: Answer[] = [];
  let stop: unknown = null;
  const tally = (answer: Answer) => {
    if (answer.status === "failed") failed.push(answer);
    else delivered = true;
  };
  // A lane hands a wave over up to the dots, commits it, writes the dots, waits for the answers,
  // and records them in its next wave's commit: at most one wave of each lane is `sending` at any
  // moment. Two lanes of half the pool keep the pool busy while the other lane commits.
  const lane = async () => {
    let answers: Answer[] = [];
    try {
      while (stop === null && at < batch.length && !ctx.signal.aborted) {
        const wave = batch.slice(at, at + WAVE);
        at += wave.length;
        const recorded = answers;
        const mails = await Promise.all(wave.map(prepare));
        // On the wire up to their final dots: delivered to nobody yet, whatever happens to this runner.
        const held = await mailer.handOver(mails.map(message));
        let handed: { held: HeldMail; answer: Answer | null; id: number; emailId: number }[];
        try {
          handed = await ctx.db.transaction(async (tx) => {
            await record(tx, recorded, ctx.now());
            const marked = await tx.update(bulkEmailRecipients).set({ state: "sending", updatedAt: ctx.now() })
              .where(
                and(inArray(bulkEmailRecipients.id, wave.map((r) => r.id)), eq(bulkEmailRecipients.state, "pending")),
              )
              .returning({ id: bulkEmailRecipients.id });
            const ids = new Set(marked.map((r) => r.id));
            const going = mails.flatMap((m, i) => ids.has(m.recipient.id) ? [{ ...m, held: held[i] }] : []);
            if (going.length === 0) return [];
            // Each mail's row in the emails, written with its claim: in doubt until its answer is recorded.
            const rows = await tx.insert(emails).values(going.map((m) => ({
              userId: m.recipient.userId,
              to: m.recipient.email,
              subject: m.mail.subject,
              template: BULK_MAIL_TEMPLATE,
              html: "",
              text: "",
              status: "in doubt" as const,
              createdAt: ctx.now(),
              bulkEmailId,
              mergeValues: m.values,
            }))).returning({ id: emails.id, userId: emails.userId });
            // By customer (one mail each in a wave): SQLite does not promise RETURNING's order.
            const rowOf = new Map(rows.map((row) => [row.userId, row.id]));
            const out = going.map((m) => {
              const emailId = rowOf.get(m.recipient.userId)!;
              const answer = m.held.early && { id: m.recipient.id, emailId, ...m.held.early };
              return { held: m.held, answer, id: m.recipient.id, emailId };
            });
            // Refused before their dot (a mailbox the server does not know): recorded now, never
            // left `sending`, which a resumed job would take for delivered.
            await record(tx, out.flatMap((h) => h.answer ? [h.answer] : []), ctx.now());
            return out;
          });
        } catch (error) {
          // Not committed: nobody of this wave may have it. Closed without their dots.
          await Promise.all(held.map((h) => h.abort()));
          throw error;
        }
        answers = [];
        if (handed.length) firstDots ??= performance.now();
        // The dots, in the turn the commit returned; those it did not mark (another runner has them) go without.
        const going = new Set(handed.map((h) => h.held));
        const dots = handed.map(async ({ held, answer, id, emailId }): Promise<Answer | null> => {
          if (answer) {
            tally(answer);
            return null;
          }
          return { id, emailId, ...await held.deliver() };
        });
        await Promise.all(held.filter((h) => !going.has(h)).map((h) => h.abort()));
        answers = (await Promise.all(dots)).filter((a): a is Answer => a !== null);
        answers.forEach(tally);
      }
    } catch (error) {
      stop ??= error;
    } finally {
      // What the mail server answered is recorded even when the lane stops (the job lost its lease).
      if (answers.length) {
        await ctx.db.transaction((tx) => record(tx, answers, ctx.now())).catch((error) => void (stop ??= error));
      }
    }
  };
  await Promise.all(Array.from({ length: LANES }, lane));
  if (stop !== null) throw stop;
  ctx.signal.throwIfAborted();
  if (!delivered && failed.length > 0) {
    // Not one mail of the batch went: the server is down, not these addresses. They wait again.
    await ctx.db.update(bulkEmailRecipients).set({ state: "pending", error: null, updatedAt: ctx.now() }).where(and(
      inArray(bulkEmailRecipients.id, failed.map((a) => a.id)),
      eq(bulkEmailRecipients.state, "failed"),
    ));
    throw new Error(`The mail server refused every mail of a batch (${failed[0].error}): trying again later.`);
  }
  return firstDots;
}

/**
 * Records a wave's answers: from sending, or from in doubt (a runner from before 2026-11-28 gave up
 * on this one meanwhile); a refusal also from sent, which a runner that took the job over assumed.
 */
async function record(tx: Tx, answers: Answer[], now: Date) {
  const delivered = answers.filter((a) => a.status !== "failed").map((a) => a.id);
  if (delivered.length) {
    await tx.update(bulkEmailRecipients).set({ state: "sent", error: null, updatedAt: now }).where(and(
      inArray(bulkEmailRecipients.id, delivered),
      inArray(bulkEmailRecipients.state, ["sending", "in doubt"]),
    ));
  }
  // The mails' rows say what the server answered: sent, or kept when no mail server is set.
  for (const status of ["sent", "stored"] as const) {
    const ids = answers.filter((a) => a.status === status).map((a) => a.emailId);
    if (ids.length) await tx.update(emails).set({ status }).where(inArray(emails.id, ids));
  }
  for (const answer of answers.filter((a) => a.status === "failed")) {
    await tx.update(bulkEmailRecipients).set({ state: "failed", error: answer.error, updatedAt: now })
      .where(
        and(eq(bulkEmailRecipients.id, answer.id), inArray(bulkEmailRecipients.state, ["sending", "in doubt", "sent"])),
      );
    await tx.update(emails).set({ status: "failed", error: answer.error }).where(eq(emails.id, answer.emailId));
  }
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
