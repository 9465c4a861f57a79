/**
 * The console's audit screen over a large log (/console/audit, server/audit.ts `auditPage`):
 * 100,000 audit entries, then each filter's first page (and a deep page) five times, median and max.
 * Not in bench/run.ts (no budget yet); run it alone on a test database:
 *
 *   NODE_ENV=test APP_ENV=test deno run -A bench/audit-screen.ts
 */
import { sql } from "drizzle-orm";
import { openTestDatabase } from "../tests/helpers/db.ts";
import { auditEntries, auditPage } from "../server/audit.ts";
import { users } from "../db/schema.ts";

const { db, close } = await openTestDatabase();
const N = 100_000;
await db.insert(users).values(
  { username: "admin@x.test", level: "Admin", createdAt: new Date() } as typeof users.$inferInsert,
);
const [{ id: adminId }] = await db.all<{ id: number }>(sql`SELECT id FROM users LIMIT 1`);
const actions = ["customer.restrict", "customer.lift", "fees.override", "receipt.record", "payout.submit"];
const t0 = performance.now();
await db.run(sql.raw(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < ${N})
  INSERT INTO audit_log (at, actor_id, subject_id, account_id, action, before, after)
  SELECT 1764000000000 + i * 60000, ${adminId}, NULL, NULL,
    CASE i % 5 ${actions.map((a, k) => `WHEN ${k} THEN '${a}'`).join(" ")} END,
    '{"restricted":false}', '{"restricted":true,"reason":"r"}' FROM n`));
console.log(`seeded ${N} in ${(performance.now() - t0).toFixed(0)} ms`);
async function time(name: string, f: () => Promise<unknown>) {
  await f();
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const s = performance.now();
    await f();
    runs.push(performance.now() - s);
  }
  runs.sort((a, b) => a - b);
  console.log(`${name}: median ${runs[2].toFixed(1)} ms, max ${runs[4].toFixed(1)} ms`);
}
await time("no filter, page 1", () => auditPage(db, {}, 1));
await time("no filter, page 1000", () => auditPage(db, {}, 1000));
await time("action", () => auditPage(db, { action: "customer.lift" }, 1));
await time("who", () => auditPage(db, { who: "admin" }, 1));
await time("days", () => auditPage(db, { from: "2025-12-01", to: "2025-12-31" }, 1));
await time("customer", () => auditPage(db, { customer: 5 }, 1));
await time("customer trail (500)", () => auditEntries(db, 5));
await close();
