/**
 * A customer migration's dry run of 10,000 lines (docs/PERFORMANCE.md, "Customer migrations";
 * issue 11): from the file's text to the run and its lines stored, through the service the call
 * uses, on a database of its own that already holds customers (some lines are duplicates of them).
 *
 *   deno task bench --only migrations [--rounds 3]
 *
 * Also, for information (no budget): the background job's commit of 1,000 lines (users created,
 * set-password links issued and the emails stored, as without SMTP).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServices } from "../app.ts";
import { openMigratedDatabase } from "../db/client.ts";
import { users } from "../db/schema.ts";
import { loadConfig } from "../server/config.ts";
import { JobRunner } from "../server/jobs/runner.ts";
import { migrationJob } from "../server/migrations/job.ts";
import { uploadMigration } from "../server/migrations/service.ts";
import { type BenchContext, type BenchModule, fmt, median, type SummaryRow, table } from "./lib/report.ts";

const BUDGET_MS = 10_000;
const LINES = 10_000;
const HEADER = "legacy_id,email,type,first_name,last_name,company_name,phone,country,address_line1,city,postcode";

/** A file of `n` lines: mostly new customers, one in 50 an existing customer's email, one in 100 refused. */
function file(n: number, prefix: string): string {
  const lines = [HEADER];
  for (let i = 0; i < n; i++) {
    const email = i % 50 === 0 ? `existing${i % 1000}@bench.test` : `${prefix}${i}@legacy.test`;
    const type = i % 100 === 1 ? "Corporate" : i % 3 === 0 ? "Business" : "Personal";
    lines.push(
      `${prefix}-${i},${email},${type},Ada,Lovelace${i},Lovelace Ltd ${i},+44 20 7946 0${
        String(i % 1000).padStart(3, "0")
      },` +
        `GB,${i} Analytical Street,London,N1 ${i % 10}AA`,
    );
  }
  return lines.join("\n");
}

export const migrationsBench: BenchModule = {
  name: "A customer migration's dry run of 10,000 lines",
  async run(ctx: BenchContext) {
    const dir = mkdtempSync(join(tmpdir(), "portal-bench-migrations-"));
    const db = await openMigratedDatabase({ url: `file:${join(dir, "portal.db")}` });
    try {
      const config = loadConfig({ APP_ENV: "production", PUBLIC_URL: "http://localhost" });
      const services = await createServices(db, config, { secretFile: join(dir, "secret") });
      const [admin] = await db.insert(users).values({ username: "admin@bench.test", level: "Admin", validated: true })
        .returning({ id: users.id });
      await db.insert(users).values(
        Array.from({ length: 1000 }, (_, i) => ({ username: `existing${i}@bench.test`, validated: true })),
      );
      const csv = file(LINES, "dry");
      console.log(`  file of ${fmt(LINES)} lines, ${fmt(csv.length / 1e6, 2)} MB`);
      const samples: number[] = [];
      let counts = { created: 0, skipped: 0, refused: 0 };
      for (let round = 1; round <= ctx.options.rounds; round++) {
        const started = performance.now();
        const run = await uploadMigration(
          db,
          { adminId: admin.id, csv, fileName: "bench.csv", dryRun: true },
          new Date(),
          () => Promise.resolve(),
        );
        const ms = performance.now() - started;
        samples.push(ms);
        counts = run.counts;
        console.log(
          `  round ${round}: ${
            fmt(ms)
          } ms (${run.counts.created} created, ${run.counts.skipped} skipped, ${run.counts.refused} refused)`,
        );
      }
      const ms = median(samples);

      const commitLines = 1000;
      const started = performance.now();
      await uploadMigration(
        db,
        { adminId: admin.id, csv: file(commitLines, "commit"), fileName: "commit.csv", dryRun: false },
        new Date(),
        () => Promise.resolve(),
      );
      await new JobRunner({ db, jobs: [migrationJob], deps: { config, services } }).drain();
      const commitMs = performance.now() - started;
      console.log(table(["rounds", "lines", "median ms"], [[String(samples.length), fmt(LINES), fmt(ms)]]));
      const rows: SummaryRow[] = [
        {
          metric: `${fmt(LINES)}-line migration dry run, file to run stored (median)`,
          value: `${fmt(ms / 1000, 2)} s`,
          budget: { limit: "≤ 10 s", pass: ms <= BUDGET_MS && counts.created > 0 },
        },
        {
          metric: `${fmt(commitLines)}-line migration commit, upload to every customer created and emailed`,
          value: `${fmt(commitMs / 1000, 1)} s`,
        },
      ];
      return { name: "migrations", rows };
    } finally {
      db.$client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
