/**
 * A 10,000-line PDF statement (docs/PERFORMANCE.md, "Statements"; issue 10): from the request to
 * the file stored, through the real job runner, on a database of its own.
 *
 *   deno task bench --only statements [--rounds 3]
 *
 * 1. A fresh database file with one account whose GBP and EUR balances moved LINES times or more:
 *    receipts, conversions with a fee (three lines), payments held and sent with a fee (three
 *    lines: the hold, the payment and its fee), written through the ledger's movements in one transaction (their time is not measured).
 * 2. Rounds (--rounds): POST account/statements's service (the statement and its job, in one
 *    transaction), then a JobRunner on the same database drains the queue: the lines read from the
 *    ledger, the PDF drawn (progress written every 500 lines), the file stored. The time from the
 *    request to the file stored is the measure; its budget is 10 s.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServices } from "../app.ts";
import { openMigratedDatabase } from "../db/client.ts";
import { accounts, users } from "../db/schema.ts";
import { statements } from "../db/schema-statements.ts";
import { loadConfig } from "../server/config.ts";
import { JobRunner } from "../server/jobs/runner.ts";
import { convert, creditReceipt, holdPayment, payoutPayment } from "../server/ledger/movements.ts";
import { statementJob } from "../server/statements/job.ts";
import { requestStatement } from "../server/statements/service.ts";
import { eq } from "drizzle-orm";
import { type BenchContext, type BenchModule, fmt, median, type SummaryRow, table } from "./lib/report.ts";

/** Budget (docs/PERFORMANCE.md). */
const BUDGET_MS = 10_000;
/** At least this many lines on the statement. */
const LINES = 10_000;

export const statementsBench: BenchModule = {
  name: "A 10,000-line PDF statement",
  async run(ctx: BenchContext) {
    const dir = mkdtempSync(join(tmpdir(), "portal-bench-statements-"));
    const db = await openMigratedDatabase({ url: `file:${join(dir, "portal.db")}` });
    try {
      const config = loadConfig({ APP_ENV: "production", PUBLIC_URL: "http://localhost" });
      const services = await createServices(db, config, { secretFile: join(dir, "secret") });
      const [user] = await db.insert(users).values({ username: "bench@portal.test", level: "User" }).returning({
        id: users.id,
      });
      const [account] = await db.insert(accounts).values({
        accountRef: "P00000001",
        type: "Personal",
        name: "Bench Statement",
        openedAt: new Date(),
      }).returning({ id: accounts.id });

      // Each round of the history writes 1 + 3 + 1 + 2 = 7 lines on GBP and EUR together.
      const loaded = performance.now();
      const cycles = Math.ceil(LINES / 7);
      await db.transaction(async (tx) => {
        for (let i = 1; i <= cycles; i++) {
          await creditReceipt(tx, { accountId: account.id, currency: "GBP", amount: 100_000, reference: `r${i}` });
          await convert(tx, {
            accountId: account.id,
            sellCurrency: "GBP",
            sellAmount: 20_000,
            buyCurrency: "EUR",
            buyAmount: 23_000,
            feeAmount: 100,
            reference: `c${i}`,
          });
          const p = {
            paymentId: i,
            accountId: account.id,
            sellCurrency: "GBP",
            sellAmount: 10_000,
            buyCurrency: "GBP",
            buyAmount: 9_900,
            feeAmount: 100,
          };
          await holdPayment(tx, p);
          await payoutPayment(tx, p);
        }
      });
      console.log(`  history of ${fmt(cycles * 7)} lines written in ${fmt((performance.now() - loaded) / 1000, 1)} s`);

      const today = new Date().toISOString().slice(0, 10);
      const samples: { ms: number; lines: number; bytes: number }[] = [];
      for (let round = 1; round <= ctx.options.rounds; round++) {
        const started = performance.now();
        const { statement } = await requestStatement(db, { accountId: account.id, userId: user.id }, {
          currency: null,
          from: today,
          to: today,
          format: "pdf",
        }, new Date());
        await new JobRunner({ db, jobs: [statementJob], deps: { config, services } }).drain();
        const ms = performance.now() - started;
        const [row] = await db.select({
          lines: statements.lineCount,
          bytes: statements.sizeBytes,
          ready: statements.readyAt,
        })
          .from(statements).where(eq(statements.id, statement.id));
        if (!row.ready) throw new Error(`The statement of round ${round} was not made.`);
        samples.push({ ms, lines: row.lines ?? 0, bytes: row.bytes ?? 0 });
        console.log(
          `  round ${round}: ${fmt(row.lines ?? 0)} lines, ${fmt((row.bytes ?? 0) / 1e6, 1)} MB, ${fmt(ms)} ms`,
        );
      }
      const ms = median(samples.map((s) => s.ms));
      const lines = samples[0].lines;
      console.log(table(["rounds", "lines", "median ms"], [[String(samples.length), fmt(lines), fmt(ms)]]));
      const rows: SummaryRow[] = [
        {
          metric: `${fmt(lines)}-line PDF statement, request to file stored (median)`,
          value: `${fmt(ms / 1000, 2)} s`,
          budget: { limit: "≤ 10 s", pass: ms <= BUDGET_MS && lines >= LINES },
        },
        { metric: "its size", value: `${fmt(samples[0].bytes / 1e6, 1)} MB` },
      ];
      return { name: "statements", rows };
    } finally {
      db.$client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
