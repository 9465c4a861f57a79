import { sql } from "drizzle-orm";
import { z } from "zod";
import { defineJob } from "../../server/jobs/define.ts";

/**
 * The job of the crash test (tests/integration/jobs-crash.test.ts): for each item, a row written
 * in the database and a mail "sent" to a recorder over HTTP, as a bulk email or a statement run
 * would do. The rows go to `crash_rows`, a table the test makes.
 */
export const rowsAndMails = defineJob("test.rows_and_mails", {
  payload: z.object({ items: z.number().int().positive(), recorder: z.url() }),
  run: async ({ items, recorder }, ctx) => {
    for (let item = 0; item < items; item++) {
      await ctx.step(`row ${item}`, async (tx) => {
        await tx.run(sql`INSERT INTO crash_rows (job_id, item) VALUES (${ctx.jobId}, ${item})`);
      });
      await ctx.effect(`mail ${item}`, async ({ idempotencyKey, inDoubt }) => {
        // The recorder, like an SMTP server, does not deduplicate: a mail begun by a runner that was
        // killed is not sent again (it may have gone), and is reported as in doubt.
        if (inDoubt) return "in doubt";
        const answer = await fetch(recorder, {
          method: "POST",
          body: JSON.stringify({ item, key: idempotencyKey }),
          signal: ctx.signal,
        });
        await answer.body?.cancel();
        if (!answer.ok) throw new Error(`The mail recorder answered ${answer.status}.`);
        return "sent";
      });
      await ctx.progress(item + 1, items, `Item ${item + 1} of ${items}`);
    }
    return { items };
  },
});
