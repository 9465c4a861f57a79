/**
 * Where a payment's CPU time goes, in-process (not run by the task), as
 * bench/tools/conversion-breakdown.ts does for conversions: the portal built as main.ts builds it,
 * set up over HTTP (an administrator, a funded owner who pays, an approver who approves, the rule
 * "every payment", a EUR recipient), then each call driven through `app.fetch` or the service
 * called directly, timed in CPU µs per call of this process.
 *
 *   NODE_ENV=production deno run -A bench/tools/payment-breakdown.ts [--n 400] [--only TEXT]
 *   NODE_ENV=production deno run -A --cpu-prof --cpu-prof-dir=/tmp/prof bench/tools/payment-breakdown.ts --only "× 16"
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { openMigratedDatabase } from "../../db/client.ts";
import { groupCommitStats } from "../../db/group-commit.ts";
import { createApp, createServices } from "../../app.ts";
import { loadConfig } from "../../server/config.ts";
import { createPayment } from "../../server/payments/create.ts";
import { approvePayment } from "../../server/payments/transitions.ts";
import { seedMoney } from "../../server/money/store.ts";
import { loadAssets } from "../../server/render/assets.ts";
import {
  createAdminOverHttp,
  expectAnswer,
  fundedCustomerOverHttp,
  registerOverHttp,
} from "../../tests/helpers/http-customer.ts";

const arg = (name: string) => (Deno.args.includes(name) ? Deno.args[Deno.args.indexOf(name) + 1] : undefined);
const n = Number(arg("--n") ?? 400);
const only = arg("--only");
const dir = mkdtempSync(join(tmpdir(), "portal-breakdown-"));
const port = 20_000 + Math.floor(Math.random() * 20_000);
for (
  const [k, v] of Object.entries({
    DATABASE_URL: `file:${join(dir, "portal.db")}`,
    APP_ENV: "production",
    APP_SECRET: crypto.randomUUID() + crypto.randomUUID(),
    QUOTE_VALIDITY_SECONDS: "3600",
    // Funding the customer is one receipt, credited at once.
    RECEIPT_APPROVAL_GBP: "1000000000",
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
  })
) Deno.env.set(k, v);

const config = loadConfig();
const db = await openMigratedDatabase({ url: config.databaseUrl });
await seedMoney(db);
const services = await createServices(db, config);
const app = createApp({ db, config, assets: loadAssets(config.distDir), services });
const server = Deno.serve({ port, hostname: "127.0.0.1", onListen: () => {} }, app.fetch);

try {
  const base = `http://127.0.0.1:${port}`;
  const admin = await createAdminOverHttp(base, db);
  const owner = await fundedCustomerOverHttp(base, db, admin, { funds: { GBP: "100000000.00" } });
  const approver = await registerOverHttp(base, db, { type: "Personal" });
  const profile = {
    first: "Ann",
    last: "Approver",
    dob: "1985-01-01",
    phone: "+44 20 7946 0001",
    identity: "987654321",
    address: { line1: "2 Test Street", line2: "", city: "London", region: "", postcode: "SW1A 1AA", country: "GB" },
    employment: "Employed",
    position: "Controller",
    expected: "20000",
    fundSource: "Salary",
    source: ["Salary"],
    purpose: ["Family support"],
    discovery: "",
    personal: true,
    agency: false,
    agency_of: "",
    public: true,
    denial: false,
  };
  expectAnswer("profile", await approver.session.post("account/profile", profile));
  expectAnswer("sandbox", await approver.session.post("sumsub/sandbox", { answer: "GREEN" }));
  expectAnswer("confirm", await approver.session.get("sumsub/confirm"));
  const [{ accountId }] = (await db.$client.execute({
    sql: "SELECT account_id AS accountId FROM account_members WHERE user_id = ?",
    args: [owner.id],
  })).rows as unknown as { accountId: number }[];
  const now = Date.now();
  await db.$client.execute({
    sql: "INSERT INTO account_members (account_id, user_id, role, created_at) VALUES (?, ?, 'approver', ?)",
    args: [accountId, approver.id, now],
  });
  const recipientId = Number(
    (await db.$client.execute({
      sql: `INSERT INTO recipients (account_id, name, type, currency, country, details, details_changed_at, created_by,
            created_at, updated_at)
          VALUES (?, 'Jean Dupont', 'person', 'EUR', 'FR', '{"iban":"FR1420041010050500013M02606","bic":"PSSTFRPPPAR"}', ?, ?, ?, ?) RETURNING id`,
      args: [accountId, now, owner.id, now, now],
    })).rows[0].id,
  );
  expectAnswer(
    "rule",
    await owner.session.put("account/approvals", { mode: "all", thresholds: {}, new_recipient: false }),
  );

  const as = (cookie: string) => async (method: string, path: string, body?: unknown, key?: string) => {
    const res = await app.fetch(
      new Request(base + "/api/" + path, {
        method,
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json",
          Cookie: cookie,
          ...(key ? { "Idempotency-Key": key } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    const json = await res.json();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json.body;
  };
  const payer = as(owner.session.cookieHeader());
  const checker = as(approver.session.cookieHeader());

  const measure = async (label: string, work: (i: number) => Promise<unknown>, prepare?: () => Promise<void>) => {
    if (only && !label.includes(only)) return;
    if (prepare) await prepare();
    for (let i = 0; i < 20; i++) await work(i);
    if (prepare) await prepare();
    const groups0 = groupCommitStats(db);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await work(i);
    const wall = (performance.now() - t0) * 1000 / n;
    const cpu = process.cpuUsage(cpu0);
    const groups = groupCommitStats(db);
    const commits = (groups.groups - groups0.groups) / n;
    console.log(
      `${label.padEnd(64)} ${((cpu.user + cpu.system) / n).toFixed(0).padStart(6)} CPU µs  ${
        wall.toFixed(0).padStart(6)
      } wall µs  ${commits.toFixed(2)} grouped commits`,
    );
  };

  let quotes: string[] = [];
  let pending: number[] = [];
  const quote = () =>
    payer("POST", "account/payments/quote", {
      recipient_id: recipientId,
      amount: "10.00",
      fixed: "send",
      sell_currency: "GBP",
      priority: false,
    });
  /** Copies of one held quote, written in one batch (so that quoting is not what is measured). */
  const holdMany = async () => {
    const template = (await quote()).id as string;
    quotes = Array.from({ length: n + 40 }, () => crypto.randomUUID());
    await db.$client.batch(
      quotes.map((id) => ({
        sql: `INSERT INTO payment_quotes SELECT ?, account_id, user_id, recipient_id, sell_currency, buy_currency,
                sell_minor, buy_minor, fee_minor, mid_rate, rate, bps, priority, rail, expected_arrival, expires_at,
                NULL, created_at, recipient_details FROM payment_quotes WHERE id = ?`,
        args: [id, template],
      })),
      "write",
    );
  };
  /** Payments waiting for approval, made beforehand. */
  const makeMany = async () => {
    await holdMany();
    pending = [];
    for (const id of quotes) {
      pending.push((await payer("POST", "account/payments", { quote_id: id, reference: "Bench" })).id);
    }
  };
  const key = () => crypto.randomUUID();
  const ownerActor = { accountId, userId: owner.id, name: "Ada", onBehalfAdminId: null };
  const approverActor = { ...ownerActor, userId: approver.id, role: "approver" as const, name: "Ann" };

  console.log(`${n} calls each, CPU µs per call of this process:`);
  await measure("GET account/balances (sign-in layer, guards, one read)", () => payer("GET", "account/balances"));
  await measure("POST account/payments/quote (hold a payment quote)", () => quote());
  await measure(
    "POST account/payments with a key",
    () => payer("POST", "account/payments", { quote_id: quotes.shift(), reference: "Bench" }, key()),
    holdMany,
  );
  await measure("POST account/payments × 16 at once (no key)", async (i) => {
    if (i % 16 !== 0) return;
    await Promise.all(
      Array.from(
        { length: 16 },
        () => payer("POST", "account/payments", { quote_id: quotes.shift(), reference: "Bench" }),
      ),
    );
  }, holdMany);
  await measure("POST account/payments with keys × 16 at once", async (i) => {
    if (i % 16 !== 0) return;
    await Promise.all(
      Array.from(
        { length: 16 },
        () => payer("POST", "account/payments", { quote_id: quotes.shift(), reference: "Bench" }, key()),
      ),
    );
  }, holdMany);
  await measure(
    "PUT account/pendingpayments/update with a key",
    () => checker("PUT", `account/pendingpayments/update?id=${pending.shift()}`, {}, key()),
    makeMany,
  );
  await measure("PUT account/pendingpayments/update with keys × 16 at once", async (i) => {
    if (i % 16 !== 0) return;
    await Promise.all(
      Array.from(
        { length: 16 },
        () => checker("PUT", `account/pendingpayments/update?id=${pending.shift()}`, {}, key()),
      ),
    );
  }, makeMany);
  await measure("GET account/funding × 16 at once (request, no read)", async (i) => {
    if (i % 16 !== 0) return;
    await Promise.all(Array.from({ length: 16 }, () => payer("GET", "account/funding")));
  });
  await measure("  createPayment() × 16 at once", async (i) => {
    if (i % 16 !== 0) return;
    await Promise.all(
      Array.from(
        { length: 16 },
        () => createPayment(db, ownerActor, { quoteId: quotes.shift()!, reference: "Bench" }, new Date()),
      ),
    );
  }, holdMany);
  await measure("  approvePayment() × 16 at once", async (i) => {
    if (i % 16 !== 0) return;
    await Promise.all(
      Array.from({ length: 16 }, () => approvePayment(db, approverActor, pending.shift()!, new Date())),
    );
  }, makeMany);
} finally {
  await server.shutdown();
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
}
