/**
 * Two portal processes on one database, as several instances would run (issue 12, decisions 013,
 * 014 and 043), on a local file and over libSQL's Hrana protocol (the test server standing in for
 * Turso): the whole customer journey, each request sent to one of the two at random (a
 * seeded random, printed, so a failure can be replayed with JOURNEY_SEED), and then the ledger
 * check passes. Every piece of state one process writes and the other must see is on the way:
 * the session and its second factor, the emailed tokens and codes, the registration cookie sealed
 * by one process and opened by the other (one APP_SECRET), the quotes, the idempotency keys, the
 * rate limits, the public pages' cache (its data versions) and the redirects table. Neither
 * process may fail a request because the other was writing, nor log a lock error.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { type Database, openDatabase } from "../../db/client.ts";
import { checkLedger, formatReport } from "../../server/ledger/check.ts";
import { tmpdir } from "node:os";
import {
  expectAnswer,
  HttpSession,
  lastEmailId,
  personalProfile,
  signInOverHttp,
  startServerOn,
  uniqueEmail,
  waitForMail,
} from "../helpers/http-customer.ts";
import { type HranaServer, startHranaServer } from "../helpers/hrana/server.ts";
import { readOutboxFrom } from "../helpers/mailbox.ts";
import type { RunningServer } from "../helpers/server.ts";

const SEED = Number(Deno.env.get("JOURNEY_SEED") ?? Math.floor(Math.random() * 2 ** 31));

/** A small seeded generator (mulberry32): the same seed sends the same requests to the same process. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Requests each process answered, by its index. */
const served = [0, 0];

/**
 * Each person's own sequence, from the seed and who they are: the journeys run at once, and each
 * still sends the same requests to the same processes when the seed is replayed.
 */
const randomFor = (who: number) => seeded(SEED + who * 7919);

/**
 * A browser-like session whose every request goes to one of the processes, drawn at random; the
 * cookies are the session's, whichever process set them. `pin` sends the next request to one.
 */
class SpreadSession extends HttpSession {
  #pinned: number | null = null;
  constructor(private readonly servers: () => string[], private readonly random: () => number) {
    super(servers()[0]);
  }
  pin(index: number): this {
    this.#pinned = index;
    return this;
  }
  override url(path: string): string {
    const urls = this.servers();
    const index = this.#pinned ?? Math.floor(this.random() * urls.length);
    this.#pinned = null;
    served[index]++;
    this.baseUrl = urls[index];
    return super.url(path);
  }
}

const ENV = {
  APP_ENV: "test",
  // One key for both: what one process seals (the registration cookie, a TOTP secret) the other opens.
  APP_SECRET: crypto.randomUUID(),
  QUOTE_VALIDITY_SECONDS: "600",
  PUBLIC_URL: "http://portal.localhost",
  // The company's account, the debtor of the payout desk's SEPA files.
  COMPANY_BANK_NAME: "Commerzbank",
  COMPANY_BANK_ACCOUNT_NAME: "Portal Payments GmbH Kundengeld",
  COMPANY_BANK_IBAN: "DE89370400440532013000",
  COMPANY_BANK_BIC: "COBADEFFXXX",
};

let dataDir = "";
let servers: RunningServer[] = [];
let reader: Database;
/** The first administrator, signed in with their second factor. */
let admin: SpreadSession;
const urls = () => servers.map((s) => s.url);

/** The database the two processes share: a local file, or the same over libSQL's Hrana protocol (as Turso). */
type Shared = "file" | "hrana";
let hrana: HranaServer | null = null;

/** Both processes started together on a fresh database, and the first administrator. */
async function startBoth(shared: Shared): Promise<void> {
  dataDir = mkdtempSync(join(tmpdir(), "portal-two-"));
  const path = join(dataDir, "portal.db");
  let env: Record<string, string> = ENV;
  let readerUrl = { url: `file:${path}`, authToken: undefined as string | undefined };
  if (shared === "hrana") {
    const authToken = crypto.randomUUID();
    hrana = startHranaServer({ path, authToken });
    // No file beside which the servers could keep the mail as sent: they keep it here.
    env = {
      ...ENV,
      DATABASE_URL: hrana.url,
      DATABASE_AUTH_TOKEN: authToken,
      TEST_MAIL_OUTBOX: join(dataDir, "outbox"),
    };
    readerUrl = { url: hrana.url, authToken };
  }
  // Both start together on a fresh database: both apply the migrations at start (MIGRATE_ON_START's
  // default), and neither may fail for the other (decision 043).
  servers = await Promise.all([startServerOn(dataDir, "main.ts", env), startServerOn(dataDir, "main.ts", env)]);
  reader = await openDatabase(readerUrl);
  if (shared === "hrana") readOutboxFrom(reader, join(dataDir, "outbox"));
  console.log(`[two-processes, ${shared}] seed ${SEED} (JOURNEY_SEED=${SEED} replays it)`);
  admin = new SpreadSession(urls, randomFor(0));
  const adminEmail = uniqueEmail("admin").toLowerCase();
  expectAnswer("setup", await admin.post("setup", { email: adminEmail, password: "admin password 123" }));
  await signInOverHttp(admin, reader, adminEmail, "admin password 123");
}

async function stopBoth(): Promise<void> {
  reader?.$client.close();
  await Promise.all(servers.map((s) => s.stop()));
  servers = [];
  await hrana?.close();
  hrana = null;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  served.fill(0);
}

/** What the processes printed that says a write failed for a lock, or that a request failed. */
function troubles(): string[] {
  return servers.flatMap((s, i) =>
    s.output().split("\n").filter((line) => /SQLITE_BUSY|database is locked|waited more than|\b500\b|Error/i.test(line))
      .map((line) => `process ${i}: ${line}`)
  );
}

/**
 * One customer from registration to a payment made: every request to either process at random,
 * except where a step is sent to one process on purpose (a quote held by one and used through the
 * other, a payment retried through the other with its Idempotency-Key).
 */
async function customerToPayment(n: number): Promise<{ customer: SpreadSession; paymentId: number }> {
  // Register and confirm the email address with the emailed link: the registration cookie one
  // process sealed is opened by whichever answers the link.
  const customer = new SpreadSession(urls, randomFor(n + 1));
  const email = uniqueEmail(`journey-${n}`).toLowerCase();
  const password = "customer password 123";
  const mark = await lastEmailId(reader);
  expectAnswer("auth/register", await customer.post("auth/register", { email, password, type: "Personal" }));
  const link = await waitForMail(reader, email, "email-validation", mark);
  const token = new URL(/https?:\/\/\S+/.exec(link)![0]).searchParams.get("token");
  expectAnswer("validation/validate", await customer.post("validation/validate", { token }));

  // Sign out, and in again with the password and the second factor's emailed code.
  expectAnswer("auth/logout", await customer.post("auth/logout"));
  expect((await customer.get("account/whoami")).status).toBe(401);
  await signInOverHttp(customer, reader, email, password);

  // Profile, identity (the sandbox provider, GREEN), and the account opens.
  expectAnswer(
    "account/profile",
    await customer.post("account/profile", personalProfile("Journey", `Twoproc${"abc"[n]}`)),
  );
  expectAnswer("sumsub/sandbox", await customer.post("sumsub/sandbox", { answer: "GREEN" }));
  const confirmed = expectAnswer<{ body: { account: boolean; account_ref: string } }>(
    "sumsub/confirm",
    await customer.get("sumsub/confirm"),
  );
  expect(confirmed.json.body.account).toBe(true);
  const accountRef = confirmed.json.body.account_ref;

  // The console records the customer's transfer in: matched by its reference, credited at once.
  const receipt = expectAnswer<{ body: { status: string; account_ref: string } }>(
    "console/receipts",
    await admin.post("console/receipts", {
      amount: "1000.00",
      currency: "GBP",
      payer_name: "Journey Twoproc",
      reference: `Top-up ${accountRef}`,
      received_at: new Date().toISOString().slice(0, 10),
    }),
    201,
  );
  expect(receipt.json.body).toMatchObject({ status: "matched", account_ref: accountRef });

  // A conversion: the quote held by one process, executed through the other.
  const quote = expectAnswer<{ body: { id: string } }>(
    "account/conversions/quote",
    await customer.pin(0).post("account/conversions/quote", {
      sell_currency: "GBP",
      buy_currency: "EUR",
      amount: "500.00",
      fixed: "sell",
    }),
  );
  expectAnswer(
    "account/conversions",
    await customer.pin(1).post("account/conversions", { quote_id: quote.json.body.id }),
    201,
  );
  // Used once, whichever process is asked again.
  expect((await customer.pin(0).post("account/conversions", { quote_id: quote.json.body.id })).status).toBe(409);

  // A recipient, and a payment to them.
  const recipient = expectAnswer<{ body: { id: number } }>(
    "account/recipients",
    await customer.post("account/recipients", {
      name: "Jeanne Martin",
      type: "person",
      currency: "EUR",
      country: "FR",
      details: { iban: "FR1420041010050500013M02606", bic: "PSSTFRPPXXX" },
    }),
    201,
  );
  const paymentQuote = expectAnswer<{ body: { id: string } }>(
    "account/payments/quote",
    await customer.post("account/payments/quote", {
      recipient_id: recipient.json.body.id,
      amount: "100.00",
      fixed: "send",
      sell_currency: "EUR",
    }),
  );
  // The payment with an Idempotency-Key through one process, retried through the other: the
  // same answer, replayed, and one payment.
  const key = crypto.randomUUID();
  const made = expectAnswer<{ body: { id: number; status: string } }>(
    "account/payments",
    await customer.pin(1).post("account/payments", { quote_id: paymentQuote.json.body.id, reference: "Rent" }, {
      "Idempotency-Key": key,
    }),
    201,
  );
  const retried = await customer.pin(0).post(
    "account/payments",
    { quote_id: paymentQuote.json.body.id, reference: "Rent" },
    { "Idempotency-Key": key },
  );
  expect(retried.status).toBe(201);
  expect(retried.headers.get("idempotent-replayed")).toBe("true");
  expect(retried.json).toEqual(made.json);
  const paymentId = made.json.body.id;
  expect(made.json.body.status).toBe("approved");

  return { customer, paymentId };
}

describe.each(["file", "hrana"] as const)("two processes on one database (%s)", (shared) => {
  beforeAll(() => startBoth(shared), 90_000);
  afterAll(stopBoth);

  test(
    "the whole customer journey, each request to either process, ends with a completed payment and a ledger that checks",
    async () => {
      // Three customers at once, so that the processes' writes meet.
      const journeys = await Promise.all([0, 1, 2].map(customerToPayment));
      const paymentIds = journeys.map((j) => j.paymentId);

      // The payout desk sends it and marks it arrived.
      // SEPA payments leave in a file: the desk makes one of every approved payment.
      const file = expectAnswer<{ body: { payments: { id: number }[] } }>(
        "console/payouts/batches",
        await admin.post("console/payouts/batches", { scheme: "sepa" }),
        201,
      );
      expect(file.json.body.payments.map((p) => p.id).sort()).toEqual([...paymentIds].sort());
      await Promise.all(journeys.map(async ({ customer, paymentId }) => {
        const completed = expectAnswer<{ body: { payment: { status: string } } }>(
          "console/payouts/:id/complete",
          await admin.post(`console/payouts/${paymentId}/complete`),
        );
        expect(completed.json.body.payment.status).toBe("completed");

        // The customer sees it completed, and the money gone from their balance, on either process.
        for (const index of [0, 1]) {
          const seen = expectAnswer<{ body: { status: string } }>(
            "account/payments/:id",
            await customer.pin(index).get(`account/payments/${paymentId}`),
          );
          expect(seen.json.body.status).toBe("completed");
          const balances = expectAnswer<{ body: { currency: string; available: string; held: string }[] }>(
            "account/balances",
            await customer.pin(index).get("account/balances"),
          );
          expect(balances.json.body.find((b) => b.currency === "GBP")?.available).toBe("500.00");
          expect(balances.json.body.find((b) => b.currency === "EUR")?.held).toBe("0.00");
        }
      }));

      const report = await checkLedger(reader);
      expect(report.violations, formatReport(report)).toEqual([]);
      expect(report.ok).toBe(true);

      // Both processes served the journey, and neither met a lock it could not wait for.
      console.log(`[two-processes] requests served: ${served[0]} and ${served[1]}`);
      expect(Math.min(...served)).toBeGreaterThan(5);
      expect(troubles()).toEqual([]);
      // Over Hrana, every statement of both processes went through the server.
      if (shared === "hrana") expect(hrana!.stats.pipelines).toBeGreaterThan(200);
    },
    120_000,
  );

  test("wrong passwords through either process count against one limit", async () => {
    const customer = new SpreadSession(urls, randomFor(10));
    const email = uniqueEmail("limited").toLowerCase();
    const password = "customer password 123";
    const mark = await lastEmailId(reader);
    expectAnswer("auth/register", await customer.post("auth/register", { email, password, type: "Personal" }));
    await waitForMail(reader, email, "email-validation", mark);
    const attacker = new SpreadSession(urls, randomFor(11));
    for (let i = 0; i < 5; i++) {
      expect((await attacker.pin(i % 2).post("auth/login", { email, password: `wrong ${i}` })).status).toBe(401);
    }
    // The sixth try is refused by either process, the right password included.
    for (const index of [0, 1]) {
      expect((await attacker.pin(index).post("auth/login", { email, password })).status).toBe(429);
    }
  }, 60_000);

  test("a change of rates through one process shows on the other's cached public page within a second", async () => {
    const calculator = async () => {
      const res = await fetch(`${urls()[1]}/calculator`);
      expect(res.status).toBe(200);
      // Each answer has its own CSP nonce; everything else is the page.
      return (await res.text()).replace(/nonce="[^"]*"/g, "");
    };
    const before = await calculator();
    expect(await calculator()).toBe(before);
    const rates = expectAnswer<{ body: { rates: Record<string, string> } }>(
      "rates",
      await admin.pin(1).get("rates?base=GBP"),
    );
    const eur = Number(rates.json.body.rates.EUR);
    expectAnswer(
      "console/rates",
      await admin.pin(0).put("console/rates", {
        base: "GBP",
        rates: { EUR: (eur * 1.01).toFixed(6) },
        confirm_changes: ["EUR"],
      }),
    );
    await vi.waitFor(async () => expect(await calculator()).not.toBe(before), { timeout: 3_000, interval: 100 });
  });

  test("a redirect added to the table is followed by both processes", async () => {
    const path = `/old-${crypto.randomUUID().slice(0, 8)}`;
    await reader.$client.execute({
      sql: "INSERT INTO redirects (path, target, status, created_at) VALUES (?, '/calculator', 301, ?)",
      args: [path, Date.now()],
    });
    for (const url of urls()) {
      await vi.waitFor(async () => {
        const res = await fetch(`${url}${path}`, { redirect: "manual" });
        await res.body?.cancel();
        expect(res.status).toBe(301);
        expect(res.headers.get("location")).toBe("/calculator");
      }, { timeout: 8_000, interval: 200 });
    }
  });
});
