/**
 * Partners, referrals, affiliates and attributions with 100,000 customers (docs/PERFORMANCE.md,
 * "Partners and attributions"; decision 051):
 *
 *   deno task bench --only partners
 *
 * 1. A portal of its own (main.ts, production, a fresh database) and its administrator, made over
 *    HTTP; then CUSTOMERS customers written straight into the tables, signed up over the last
 *    1,000 days: every one with an attribution (20 campaigns, 30 referring sites), 10 % a
 *    partner's (50 partners), 5 % with a code that is no partner's, 60 % with an account and 30 %
 *    of those credited by a receipt (a `receipt` transfer crediting the account and a fee of 1.50
 *    to the house's fee income, whose balance is left out: this measures the reads, not the
 *    ledger). Each partner's customer has their partner history from sign-up, and one in ten of
 *    them moved to another partner half-way (decision 062): the commissions of the referrals and
 *    the profit report by partner find each fee's partner at its time.
 * 2. Each call, asked SAMPLES times over one keep-alive connection: the server's time (its
 *    Server-Timing header `app;dur=`, sent to administrators: from the request's arrival to its answer) and the client's. The server's p95
 *    of each is held to MAX_SERVER_P95_MS, the customers list's budget (decision 055), PASS/FAIL.
 */
import { sql } from "drizzle-orm";
import { openDatabase } from "../db/client.ts";
import { createAdminOverHttp } from "../tests/helpers/http-customer.ts";
import { startPortal } from "./lib/processes.ts";
import { DAY, seedCustomers, serverTimes } from "./lib/seed-customers.ts";
import { type BenchContext, type BenchModule, fmt, percentile, type SummaryRow, table } from "./lib/report.ts";

const CUSTOMERS = 100_000;
const PARTNERS = 50;
const SAMPLES = 20;
/** The budget (decision 055): the customers list's, 50 ms of server time at p95. */
const MAX_SERVER_P95_MS = 50;

export const partnersBench: BenchModule = {
  name: "partners",
  async run(ctx: BenchContext) {
    const portal = await startPortal({
      name: "portal for partners (main.ts)",
      cpuProfileDir: ctx.options.cpuProfileDir,
    });
    const rows: SummaryRow[] = [];
    try {
      const db = await openDatabase({ url: `file:${portal.databasePath}` });
      let cookie: string;
      const now = Date.now();
      try {
        const admin = await createAdminOverHttp(portal.url, db);
        cookie = admin.session.cookieHeader();
        const started = performance.now();
        await db.run(sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${PARTNERS})
          INSERT INTO partners (name, code, share_bps, created_at, created_by, updated_at)
          SELECT 'Bench Partner ' || i, 'BENCH' || i, 500 + i * 10, ${now}, ${admin.id}, ${now} FROM n`);
        const { first, last } = await seedCustomers(db, {
          count: CUSTOMERS,
          domain: "partners.test",
          now,
          more: {
            referral_code:
              sql`CASE WHEN i % 20 < 2 THEN 'BENCH' || (1 + i % ${PARTNERS}) WHEN i % 20 = 2 THEN 'FRIEND' || (i % 500) END`,
            partner_id: sql`CASE WHEN i % 20 < 2 THEN 1 + i % ${PARTNERS} END`,
          },
          balance: sql`10000`,
        });
        await db.run(sql`INSERT INTO attributions (user_id, utm_source, utm_medium, utm_campaign, referrer, created_at)
          SELECT id, 'source' || (id % 5), 'medium' || (id % 2), 'campaign' || (id % 20),
            'https://site' || (id % 30) || '.example/page', created_at
          FROM users WHERE id BETWEEN ${first} AND ${last}`);
        await db.run(sql`INSERT INTO ledger_transfers (kind, description, reference, created_at)
          SELECT 'receipt', 'Bench receipt', 'bench:' || a.id, a.opened_at FROM accounts a
          WHERE a.account_ref LIKE 'B%' AND a.id % 10 < 3`);
        await db.run(sql`INSERT INTO ledger_entries (transfer_id, ledger_account_id, currency, amount, created_at)
          SELECT t.id, la.id, 'GBP', 10000, t.created_at FROM ledger_transfers t
          JOIN ledger_accounts la ON la.kind = 'customer' AND la.account_id = CAST(substr(t.reference, 7) AS INTEGER)
          WHERE t.reference LIKE 'bench:%'`);
        // What the receipt's own transaction does (server/ledger/movements.ts, decision 055).
        await db.run(sql`UPDATE users SET funded_at = created_at WHERE id IN (
          SELECT m.user_id FROM account_members m JOIN accounts a ON a.id = m.account_id
           WHERE a.account_ref LIKE 'B%' AND a.id % 10 < 3)`);
        await db.run(sql`UPDATE attributions SET funded_at = (SELECT funded_at FROM users WHERE id = user_id)
          WHERE user_id BETWEEN ${first} AND ${last}`);
        // Each partner's customer is theirs from sign-up (what registration with the code writes,
        // decision 062), and one in ten of them moved to the next partner half-way to now.
        await db.run(sql`INSERT INTO partner_assignments (user_id, partner_id, starts_at, created_by)
          SELECT id, partner_id, created_at, id FROM users WHERE partner_id IS NOT NULL AND id BETWEEN ${first} AND ${last}`);
        await db.run(sql`INSERT INTO partner_assignments (user_id, partner_id, starts_at, created_by)
          SELECT id, 1 + partner_id % ${PARTNERS}, (created_at + ${now}) / 2, ${admin.id} FROM users
           WHERE partner_id IS NOT NULL AND id % 10 = 0 AND id BETWEEN ${first} AND ${last}`);
        await db.run(sql`UPDATE users SET partner_id = 1 + partner_id % ${PARTNERS}
          WHERE partner_id IS NOT NULL AND id % 10 = 0 AND id BETWEEN ${first} AND ${last}`);
        // A fee on every receipt, so that the commissions and the profit report by partner have a
        // movement per funded account to give to a partner (the ledger's balances are left out).
        await db.run(sql`INSERT INTO ledger_accounts (kind, account_id, currency, purpose, balance, created_at)
          VALUES ('house', NULL, 'GBP', 'fee_income', 0, ${now})`);
        await db.run(sql`INSERT INTO ledger_entries (transfer_id, ledger_account_id, currency, amount, created_at)
          SELECT t.id, (SELECT id FROM ledger_accounts WHERE kind = 'house' AND purpose = 'fee_income' AND currency = 'GBP'),
            'GBP', 150, t.created_at FROM ledger_transfers t WHERE t.reference LIKE 'bench:%'`);
        await db.run(sql`ANALYZE`);
        console.log(`seeded ${fmt(CUSTOMERS)} customers in ${fmt((performance.now() - started) / 1000, 1)} s`);
      } finally {
        db.$client.close();
      }

      const day = (ago: number) => new Date(now - ago * DAY).toISOString().slice(0, 10);
      const calls: [string, string][] = [
        ["partners (50)", "/api/console/partners"],
        ["one partner's customers (2,000), first page", "/api/console/partners/1"],
        ["one partner's customers (2,000), page 50", "/api/console/partners/1?page=50&per_page=20"],
        ["affiliates (every code ever)", "/api/console/affiliates"],
        ["referrals, 30 days", "/api/console/referrals"],
        ["referrals, 365 days, first page", `/api/console/referrals?from=${day(364)}&to=${day(0)}`],
        ["attributions, 30 days", "/api/console/attributions"],
        ["attributions, 365 days", `/api/console/attributions?from=${day(364)}&to=${day(0)}`],
        ["profit by partner, 365 days", `/api/console/profit?from=${day(364)}&to=${day(0)}&group=month&by=partner`],
      ];
      const lines: string[][] = [];
      // The first read of the year fills its daily income summary (decision 070): measured once,
      // apart; the calls below measure the steady state.
      {
        const path = calls.find(([name]) => name.startsWith("referrals, 365 days"))![1];
        const { server } = await serverTimes(`${portal.url}${path}`, cookie, 1, 0);
        lines.push(["referrals, 365 days, first call (fills the summary)", "-", fmt(server[0], 1), "-", "-"]);
        rows.push({ metric: "partners referrals, 365 days, first call: server", value: `${fmt(server[0], 1)} ms` });
      }
      for (const [name, path] of calls) {
        const { server, client: times } = await serverTimes(`${portal.url}${path}`, cookie, SAMPLES, 2);
        const p95 = percentile(server, 95);
        const pass = p95 <= MAX_SERVER_P95_MS;
        if (path.startsWith("/api/console/profit")) {
          // The profit report (decision 047) has no budget of its own: measured beside, not held to 055's.
          lines.push([name, fmt(percentile(server, 50), 1), fmt(p95, 1), fmt(percentile(times, 95), 1), "-"]);
          rows.push({ metric: `partners ${name}: server p95`, value: `${fmt(p95, 1)} ms` });
          continue;
        }
        lines.push([
          name,
          fmt(percentile(server, 50), 1),
          fmt(p95, 1),
          fmt(percentile(times, 95), 1),
          pass ? "PASS" : "FAIL",
        ]);
        rows.push({
          metric: `partners ${name}: server p95`,
          value: `${fmt(p95, 1)} ms`,
          budget: { limit: `≤ ${fmt(MAX_SERVER_P95_MS)} ms`, pass },
        });
      }
      console.log(table(["call", "server p50 ms", "server p95 ms", "client p95 ms", "budget"], lines));
      console.log(`load average: ${Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ")}`);
    } finally {
      await portal.stop();
    }
    return { name: "partners", rows };
  },
};
