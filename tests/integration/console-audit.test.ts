import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { and, desc, eq, gt, notInArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { SEARCH_TABLES } from "../../db/derived.ts";
import { auditLog, emails } from "../../db/schema.ts";
import { SECURITY_TEMPLATES } from "../../server/mail/redact.ts";
import { consoleAlerts } from "../../db/schema-console.ts";
import { bulkEmailRecipients, bulkEmails } from "../../db/schema-bulkemails.ts";
import { AUDIT_ACTIONS } from "../../lib/audit.ts";
import type { CallContract } from "../../lib/contracts/define.ts";
import {
  type Admin,
  anotherAdmin,
  type Customer,
  expectStatus,
  personalProfile,
  registerCustomer,
  uniqueEmail,
} from "../helpers/client.ts";
import {
  customerWithoutAccount,
  expectLedgerSound,
  type MoneyApp,
  moneyApp,
  type OpenCustomer,
  openCustomer,
  postReceipt,
} from "../helpers/money.ts";
import { addRecipient, paid, type PaymentAccount, paymentAccount } from "../helpers/payments.ts";
import { fixture } from "../unit/bank-files-xsd.ts";

/**
 * Every console write is in the audit log (issue 14, finding 8): who (the administrator), for whom
 * (the customer or the account, when there is one), what (an action of lib/audit.ts) and the values
 * before and after, written in the transaction of the change, so that a change cannot commit
 * without its record. The list of console writes comes from the contracts: every contract with the
 * console's guards that is not a GET. A console write added without a scenario here, or without an
 * audit entry, fails this test.
 */

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const ROOT = resolve(import.meta.dirname!, "../..");

let t: MoneyApp;
let admin: Admin;
let checker: Admin;
let customer: OpenCustomer;
/** An account that pays people, for the payout desk's writes; its recipients in GBP and EUR. */
let payer: PaymentAccount;
let payees: { GBP: number; EUR: number };

/** The company's account, the debtor of the payout desk's SEPA files. */
const BANK = {
  COMPANY_BANK_NAME: "Commerzbank",
  COMPANY_BANK_ACCOUNT_NAME: "Portal Payments GmbH Kundengeld",
  COMPANY_BANK_IBAN: "DE89370400440532013000",
  COMPANY_BANK_BIC: "COBADEFFXXX",
};

beforeAll(async () => {
  ({ t, admin } = await moneyApp({ env: BANK }));
  checker = await anotherAdmin(t);
  customer = await openCustomer(t);
  payer = await paymentAccount(t, admin, { GBP: "1000.00", EUR: "1000.00" });
  payees = {
    GBP: await addRecipient(t, payer, { currency: "GBP", country: "GB" }),
    EUR: await addRecipient(t, payer, { currency: "EUR", country: "DE" }),
  };
});

/** An approved payment of the payer's, waiting on the payout desk. */
async function approvedPayment(currency: "GBP" | "EUR"): Promise<number> {
  const payment = await paid(payer.owner.client, {
    recipient_id: payees[currency],
    amount: "5.00",
    sell_currency: currency,
  });
  expect(payment.status).toBe("approved");
  return payment.id as number;
}
afterAll(() => expectLedgerSound(t.db));

/** Every contract of lib/contracts/ with the console's guards that changes something. */
async function consoleWrites(): Promise<CallContract[]> {
  const writes: CallContract[] = [];
  for (const name of readdirSync(join(ROOT, "lib/contracts")).filter((n) => n.endsWith(".ts"))) {
    const module = await import(join(ROOT, "lib/contracts", name));
    for (const value of Object.values(module)) {
      const call = value as Partial<CallContract>;
      if (typeof call?.method !== "string" || typeof call.path !== "string" || !Array.isArray(call.guards)) continue;
      if (call.guards.includes("is-admin") && call.method !== "GET") writes.push(call as CallContract);
    }
  }
  return writes;
}

const nameOf = (call: Pick<CallContract, "method" | "path">) => `${call.method} ${call.path}`;

interface Request {
  path: string;
  body?: unknown;
  /** Headers of a body that is a document, not JSON (a bank statement's XML, a CSV file). */
  headers?: Record<string, string>;
  /** Who makes it: the first administrator unless a second one must (four eyes). */
  by?: Admin;
  /** For whom the entry must say it was: the customer's id, or the account's reference. */
  subject?: number;
  accountRef?: string;
}

/** A customer who waits on /processing, for the review calls. */
const waitingBusiness = async (): Promise<Customer> => await customerWithoutAccount(t);

/**
 * For each console write: what to set up (with the audit log working), then the request that
 * must succeed and leave its audit entry.
 */
const SCENARIOS: Record<string, () => Promise<Request>> = {
  "POST /console/partners": () =>
    Promise.resolve({
      path: "console/partners",
      body: { name: `Audited partner ${partners}`, code: partnerCode(), share_percent: "10" },
    }),
  "PUT /console/users/:id/partner": async () => {
    const created = await admin.client.post("console/partners", {
      name: `Partner of a customer ${partners}`,
      code: partnerCode(),
      share_percent: "5",
    });
    expectStatus(created, 201);
    return {
      path: `console/users/${customer.id}/partner`,
      body: { partner_id: created.json.body.id },
      subject: customer.id,
    };
  },
  "PUT /console/partners/:id": async () => {
    const created = await admin.client.post("console/partners", {
      name: `Partner to change ${partners}`,
      code: partnerCode(),
      share_percent: "10",
    });
    expectStatus(created, 201);
    return {
      path: `console/partners/${created.json.body.id}`,
      body: { name: `Changed partner ${partners}`, code: partnerCode(), share_percent: "12.5" },
    };
  },
  "PUT /console/rates": () =>
    Promise.resolve({ path: "console/rates", body: { base: "EUR", rates: { USD: "1.1560" } } }),
  "POST /console/pricingplans": async () => ({ path: "console/pricingplans", body: await planBody("Audited plan") }),
  "PUT /console/pricingplans/:id": async () => {
    const created = await admin.client.post("console/pricingplans", await planBody("To be replaced"));
    expectStatus(created, 201);
    return { path: `console/pricingplans/${created.json.body.id}`, body: await planBody("Replaced") };
  },
  // A fee of its own each time: scenarios run twice, and saving the same overrides changes nothing.
  "PUT /console/users/:id/fees": () =>
    Promise.resolve({
      path: `console/users/${customer.id}/fees`,
      body: { override_transfer_fee: true, fees: { GBP: { regular: `1.${10 + ++feeChanges}` } } },
      subject: customer.id,
    }),
  "POST /console/users/:id/restrict": async () => {
    const restricted = await openCustomer(t);
    return {
      path: `console/users/${restricted.id}/restrict`,
      body: { reason: "Audited restriction" },
      subject: restricted.id,
    };
  },
  "DELETE /console/users/:id/restrict": async () => {
    const lifted = await openCustomer(t);
    expectStatus(await admin.client.post(`console/users/${lifted.id}/restrict`, { reason: "To be lifted" }), 200);
    return { path: `console/users/${lifted.id}/restrict`, body: { reason: "Audited lift" }, subject: lifted.id };
  },
  "PUT /console/users/:id/profile": async () => {
    const moved = await openCustomer(t);
    return {
      path: `console/users/${moved.id}/profile`,
      body: {
        changes: { address: { ...personalProfile().address as object, line1: "221B Baker Street" } },
        reason: "Customer moved; proof of address received",
      },
      subject: moved.id,
    };
  },
  "POST /console/receipts": () =>
    Promise.resolve({
      path: "console/receipts",
      body: {
        amount: "10.00",
        currency: "GBP",
        payer_name: "Audited",
        reference: unique(customer.accountRef),
        received_at: today(),
      },
      accountRef: customer.accountRef,
      subject: customer.id,
    }),
  "POST /console/receipts/import": () =>
    Promise.resolve({
      path: "console/receipts/import",
      // The bank's sample as a statement of the company's account, its entries new each time.
      body: fixture("camt.053.001.02-fffs-sample.xml").replaceAll("FI7433010001222090", BANK.COMPANY_BANK_IBAN)
        .replaceAll("091029ACCTSTMTARCH", `AUDIT${++receipts}ARCH`),
      headers: { "content-type": "application/xml" },
    }),
  "POST /console/receipts/:id/allocate": async () => {
    const receipt = await recorded(
      { amount: "11.00", currency: "GBP", reference: unique("No account named") },
      "unmatched",
    );
    return {
      path: `console/receipts/${receipt}/allocate`,
      body: { account_ref: customer.accountRef },
      accountRef: customer.accountRef,
      subject: customer.id,
    };
  },
  "POST /console/receipts/:id/approve": async () => {
    const receipt = await recorded(
      { amount: "60000.00", currency: "GBP", reference: unique(customer.accountRef) },
      "awaiting_approval",
    );
    return {
      path: `console/receipts/${receipt}/approve`,
      by: checker,
      accountRef: customer.accountRef,
      subject: customer.id,
    };
  },
  "POST /console/receipts/:id/decline": async () => {
    const receipt = await recorded(
      { amount: "61000.00", currency: "GBP", reference: unique(customer.accountRef) },
      "awaiting_approval",
    );
    return {
      path: `console/receipts/${receipt}/decline`,
      body: { reason: "Typed wrong" },
      accountRef: customer.accountRef,
      subject: customer.id,
    };
  },
  "POST /console/receipts/:id/release": async () => {
    const receipt = await duplicate("12.00");
    return {
      path: `console/receipts/${receipt}/release`,
      by: checker,
      accountRef: customer.accountRef,
      subject: customer.id,
    };
  },
  "POST /console/receipts/:id/discard": async () => {
    const receipt = await duplicate("13.00");
    return {
      path: `console/receipts/${receipt}/discard`,
      body: { reason: "Recorded twice" },
      accountRef: customer.accountRef,
      subject: customer.id,
    };
  },
  "POST /console/receipts/:id/reverse": async () => {
    const receipt = await recorded(
      { amount: "14.00", currency: "GBP", reference: unique(customer.accountRef) },
      "matched",
    );
    return {
      path: `console/receipts/${receipt}/reverse`,
      body: { reason: "Wrong customer" },
      accountRef: customer.accountRef,
      subject: customer.id,
    };
  },
  "POST /console/users/:id/open-account": async () => {
    const waiting = await waitingBusiness();
    return {
      path: `console/users/${waiting.id}/open-account`,
      body: { compliance: { done: true, amount: "100000", date: today() } },
      subject: waiting.id,
    };
  },
  "POST /console/users/:id/reject": async () => {
    const waiting = await waitingBusiness();
    return {
      path: `console/users/${waiting.id}/reject`,
      body: { reason: "not_offered", note: "Audited" },
      subject: waiting.id,
    };
  },
  "POST /console/payouts/:id/submit": async () => ({
    path: `console/payouts/${await approvedPayment("GBP")}/submit`,
    body: {},
    accountRef: payer.owner.accountRef,
  }),
  "POST /console/payouts/:id/complete": async () => {
    const id = await approvedPayment("GBP");
    expectStatus(await admin.client.post(`console/payouts/${id}/submit`, {}), 200);
    return { path: `console/payouts/${id}/complete`, accountRef: payer.owner.accountRef };
  },
  "POST /console/payouts/:id/fail": async () => ({
    path: `console/payouts/${await approvedPayment("GBP")}/fail`,
    body: { reason: "The recipient's bank is closing" },
    accountRef: payer.owner.accountRef,
  }),
  "POST /console/payouts/batches": async () => {
    await approvedPayment("EUR");
    return { path: "console/payouts/batches", body: { scheme: "sepa" } };
  },
  "POST /console/admins": () =>
    Promise.resolve({ path: "console/admins", body: { email: uniqueEmail("invited"), name: "Audited Invitee" } }),
  "POST /console/admins/:id/approve": async () => {
    const asked = await waitingInvitation();
    return { path: `console/admins/${asked}/approve`, by: checker, subject: asked };
  },
  "POST /console/admins/:id/refuse": async () => {
    const asked = await waitingInvitation();
    return {
      path: `console/admins/${asked}/refuse`,
      body: { reason: "Nobody of that name works here" },
      by: checker,
      subject: asked,
    };
  },
  "DELETE /console/admins/:id": async () => {
    const leaving = await anotherAdmin(t);
    return { path: `console/admins/${leaving.id}`, subject: leaving.id };
  },
  "POST /console/alerts/:id/assign": async () => ({
    path: `console/alerts/${await openAlert()}/assign`,
    body: { admin_id: checker.id },
  }),
  "POST /console/alerts/:id/resolve": async () => ({
    path: `console/alerts/${await openAlert()}/resolve`,
    body: { note: "Looked at it: nothing wrong." },
  }),
  "PUT /console/alerts/threshold": () => Promise.resolve({ path: "console/alerts/threshold", body: { gbp: "25000" } }),
  "POST /console/emails/:id/resend": async () => {
    // An email that signs nobody in: a security email is never sent again (decision 057).
    const [email] = await t.db.select({ id: emails.id, userId: emails.userId }).from(emails)
      .where(and(eq(emails.to, customer.email), notInArray(emails.template, [...SECURITY_TEMPLATES]))).limit(1);
    return { path: `console/emails/${email.id}/resend`, subject: email.userId ?? undefined };
  },
  "POST /account/onbehalf": () =>
    Promise.resolve({ path: "account/onbehalf", body: { on_behalf_of: customer.id }, subject: customer.id }),
  "DELETE /account/onbehalf": async () => {
    expectStatus(await admin.client.post("account/onbehalf", { on_behalf_of: customer.id }), 200);
    return { path: "account/onbehalf", subject: customer.id };
  },
  "POST /console/bulkemails": () =>
    Promise.resolve({
      path: "console/bulkemails",
      body: { subject: "Audited news", body: "Hello {{name}}", segment: { type: "Personal" } },
    }),
  "PUT /console/bulkemails/:id": async () => {
    const draft = await admin.client.post("console/bulkemails", {
      subject: "Audited typo",
      body: "Hello",
      segment: {},
    });
    expectStatus(draft, 201);
    return {
      path: `console/bulkemails/${draft.json.body.id}`,
      body: { subject: "Audited correction", body: "Hello {{name}}", segment: {} },
    };
  },
  "DELETE /console/bulkemails/:id": async () => {
    const draft = await admin.client.post("console/bulkemails", {
      subject: "Audited mistake",
      body: "Hello",
      segment: {},
    });
    expectStatus(draft, 201);
    return { path: `console/bulkemails/${draft.json.body.id}` };
  },
  "POST /console/bulkemails/:id/send": async () => {
    const draft = await admin.client.post("console/bulkemails", {
      subject: "Audited send",
      body: "Hello",
      segment: {},
    });
    expectStatus(draft, 201);
    return { path: `console/bulkemails/${draft.json.body.id}/send` };
  },
  "POST /console/bulkemails/:id/send-in-doubt": async () => {
    // A finished send with a recipient a crash left in doubt (decision 050), as the database holds it.
    const now = new Date();
    const [email] = await t.db.insert(bulkEmails).values({
      subject: "Audited doubt",
      body: "Hello",
      segment: {},
      createdBy: admin.id,
      createdAt: now,
      sentBy: admin.id,
      sentAt: now,
      ratePerSecond: 50,
      finishedAt: now,
    }).returning({ id: bulkEmails.id });
    await t.db.insert(bulkEmailRecipients).values({
      bulkEmailId: email.id,
      userId: customer.id,
      email: customer.email,
      state: "in doubt",
      updatedAt: now,
    });
    return { path: `console/bulkemails/${email.id}/send-in-doubt` };
  },
  "POST /console/migrations": () =>
    Promise.resolve({
      path: "console/migrations?dry_run=false",
      body: `legacy_id,email,type,first_name,last_name,country\n${crypto.randomUUID()},${
        unique("x").replaceAll(" ", "")
      }@example.com,Personal,Ada,Lovelace,GB\n`,
      headers: { "content-type": "text/csv" },
    }),
};

const today = () => t.clock.today();

/** An administrator's invitation the first administrator asked for: it waits for the checker. */
async function waitingInvitation(): Promise<number> {
  const asked = await admin.client.post("console/admins", { email: uniqueEmail("asked"), name: "Waiting Invitee" });
  expectStatus(asked, 201);
  expect(asked.json.body.status).toBe("waiting");
  return asked.json.body.id;
}

/**
 * An open alert, for the alerts' writes: a payout the checker failed, so that the first administrator
 * may resolve it (its raiser may not).
 */
async function openAlert(): Promise<number> {
  const id = await approvedPayment("GBP");
  expectStatus(await checker.client.post(`console/payouts/${id}/fail`, { reason: "For an alert" }), 200);
  const [alert] = await t.db.select({ id: consoleAlerts.id }).from(consoleAlerts)
    .where(eq(consoleAlerts.dedupeKey, `payout_failed:${id}`));
  return alert.id;
}

let plans = 0;
/** A plan of a name no plan has yet (two plans cannot share one): scenarios run twice. */
async function planBody(name: string) {
  const listed = await admin.client.get("console/pricingplans");
  const { tier_currency, tiers, fees } = listed.json.body[0];
  return { name: `${name} ${++plans}`, tier_currency, tiers, fees };
}

let feeChanges = 0;

let partners = 0;
/** A referral code no partner has yet: scenarios run twice. */
const partnerCode = () => `AUDIT${++partners}`;

let receipts = 0;
/** A reference no receipt had before: scenarios run twice, and a repeat would be held as a duplicate. */
const unique = (reference: string) => `Receipt ${++receipts} ${reference}`;

async function recorded(fields: { amount: string; currency: string; reference: string }, status: string) {
  const res = await postReceipt(t, admin, fields);
  expectStatus(res, 201);
  expect(res.json.body.status).toBe(status);
  return res.json.body.id as number;
}

/** A receipt recorded twice: the second copy is held as a likely duplicate. */
async function duplicate(amount: string) {
  const fields = { amount, currency: "GBP", reference: unique(customer.accountRef) };
  await recorded(fields, "matched");
  return await recorded(fields, "held_duplicate");
}

function send(request: Request, method: string) {
  const client = (request.by ?? admin).client;
  // A DELETE sends a body only when its scenario gives one (lifting a restriction says why).
  return client.request(
    method,
    request.path,
    method === "DELETE" ? request.body : (request.body ?? {}),
    request.headers,
  );
}

/** The ends of on-behalf mode left by a scenario, so the next write is the administrator's own. */
async function stopActingOnBehalf() {
  for (const who of [admin, checker]) await who.client.delete("account/onbehalf");
}

const lastAuditId = async () =>
  (await t.db.select({ id: auditLog.id }).from(auditLog).orderBy(desc(auditLog.id)).limit(1))[0]?.id ?? 0;

describe("every console write leaves an audit entry", () => {
  test("every console write has a scenario here", async () => {
    const missing = (await consoleWrites()).map(nameOf).filter((name) => !(name in SCENARIOS));
    expect(missing, `Console writes without a scenario in ${import.meta.filename}: add one.`).toEqual([]);
  });

  test("each one records who, for whom, what, and the values before and after", async () => {
    const problems: string[] = [];
    for (const call of await consoleWrites()) {
      const scenario = SCENARIOS[nameOf(call)];
      if (!scenario) continue;
      const request = await scenario();
      const from = await lastAuditId();
      const res = await send(request, call.method);
      if (res.status >= 300) {
        problems.push(`${nameOf(call)}: answered ${res.status} ${res.text.slice(0, 200)}`);
        continue;
      }
      const entries = await t.db.select().from(auditLog).where(gt(auditLog.id, from));
      const mine = entries.filter((e) => e.actorId === (request.by ?? admin).id && e.action in AUDIT_ACTIONS);
      if (!mine.length) {
        problems.push(`${nameOf(call)}: no audit entry by the administrator (${JSON.stringify(entries)})`);
        continue;
      }
      const [entry] = mine.slice(-1);
      if (entry.before === null && entry.after === null) problems.push(`${nameOf(call)}: no values before or after`);
      if (request.subject !== undefined && entry.subjectId !== request.subject) {
        problems.push(`${nameOf(call)}: for customer ${entry.subjectId}, not ${request.subject}`);
      }
      if (request.accountRef !== undefined) {
        const audit = await admin.client.get(`console/audit`);
        const shown = audit.json.body.find((e: { id: number }) => e.id === entry.id);
        if (shown?.account_ref !== request.accountRef) {
          problems.push(`${nameOf(call)}: for account ${shown?.account_ref}, not ${request.accountRef}`);
        }
      }
      await stopActingOnBehalf();
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });
});

/**
 * Every table's rows, but for the bookkeeping of requests (sessions, keys, limits, codes) and the
 * search tables the triggers derive from the others (db/derived.ts: what they hold follows the
 * tables dumped here).
 */
async function everything(): Promise<string> {
  const tables = (await t.db.all<{ name: string }>(
    sql`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%'`,
  )).map((r) => r.name).filter((name) =>
    !["sessions", "idempotency_keys", "rate_limits", "verifications"].includes(name) &&
    !SEARCH_TABLES.some((search) => name === search || name.startsWith(`${search}_`))
  );
  const dump: Record<string, unknown> = {};
  for (const name of tables.sort()) dump[name] = await t.db.all(sql.raw(`SELECT * FROM "${name}" ORDER BY rowid`));
  return JSON.stringify(dump);
}

describe("a change cannot commit without its audit entry", () => {
  test("with the audit log refusing every entry, each console write fails and changes nothing", async () => {
    const problems: string[] = [];
    for (const call of await consoleWrites()) {
      const scenario = SCENARIOS[nameOf(call)];
      if (!scenario) continue;
      const request = await scenario();
      const before = await everything();
      await t.db.run(
        sql`CREATE TRIGGER audit_down BEFORE INSERT ON audit_log BEGIN SELECT RAISE(ABORT, 'the audit log is down'); END`,
      );
      // The refused entry is a fault of ours: logged, and expected here.
      const logged = vi.spyOn(console, "error").mockImplementation(() => {});
      try {
        const res = await send(request, call.method);
        if (res.status < 500) problems.push(`${nameOf(call)}: answered ${res.status} without its audit entry`);
        const after = await everything();
        if (after !== before) problems.push(`${nameOf(call)}: changed the database without its audit entry`);
      } finally {
        logged.mockRestore();
        await t.db.run(sql`DROP TRIGGER audit_down`);
      }
      await stopActingOnBehalf();
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });
});

describe("on-behalf mode", () => {
  test("switching from one customer to another records the end for the first, then the start for the second", async () => {
    const other = await openCustomer(t);
    expectStatus(await admin.client.post("account/onbehalf", { on_behalf_of: customer.id }), 200);
    const from = await lastAuditId();
    expectStatus(await admin.client.post("account/onbehalf", { on_behalf_of: other.id }), 200);
    const entries = await t.db.select().from(auditLog).where(gt(auditLog.id, from)).orderBy(auditLog.id);
    expect(entries.map((e) => [e.action, e.subjectId])).toEqual([
      ["on-behalf.end", customer.id],
      ["on-behalf.start", other.id],
    ]);
    expectStatus(await admin.client.delete("account/onbehalf"), 200);
  });

  test("a change made on behalf is recorded once, with both identities, the call and its status", async () => {
    expectStatus(await admin.client.post("account/onbehalf", { on_behalf_of: customer.id }), 200);
    const from = await lastAuditId();
    const quote = await admin.client.post("account/conversions/quote", {
      sell_currency: "GBP",
      buy_currency: "EUR",
      amount: "100.00",
      fixed: "sell",
    });
    expectStatus(quote, 200);
    const entries = await t.db.select().from(auditLog).where(gt(auditLog.id, from));
    expect(entries).toEqual([
      expect.objectContaining({
        actorId: admin.id,
        subjectId: customer.id,
        action: "on-behalf.call",
        after: { method: "POST", path: "/api/account/conversions/quote", status: 200 },
      }),
    ]);
    expectStatus(await admin.client.delete("account/onbehalf"), 200);
  });
});

describe("on-behalf mode, a call that reads and changes", () => {
  test("confirming the identity check on the customer's behalf, which opens their account, is recorded", async () => {
    const newcomer = await registerCustomer(t, { type: "Personal" });
    expectStatus(await newcomer.client.post("account/profile", personalProfile()), 200);
    expectStatus(await newcomer.client.post("sumsub/sandbox", { answer: "GREEN" }), 200);
    expectStatus(await admin.client.post("account/onbehalf", { on_behalf_of: newcomer.id }), 200);
    const from = await lastAuditId();
    try {
      expectStatus(await admin.client.get("sumsub/confirm"), 200);
    } finally {
      expectStatus(await admin.client.delete("account/onbehalf"), 200);
    }
    expect((await newcomer.client.get("account/whoami")).json.body.account).toBe(true);
    const entries = await t.db.select().from(auditLog).where(gt(auditLog.id, from)).orderBy(auditLog.id);
    expect(entries.map((e) => [e.action, e.actorId, e.subjectId, e.after])).toEqual([
      ["on-behalf.call", admin.id, newcomer.id, { method: "GET", path: "/api/sumsub/confirm", status: 200 }],
      ["on-behalf.end", admin.id, newcomer.id, expect.anything()],
    ]);
  });
});

describe("the customer's page shows their audit trail", () => {
  test("/console/users/{id} lists what was done for the customer and their account, with who did it", async () => {
    const page = await checker.client.get(`/console/users/${customer.id}`);
    expect(page.status).toBe(200);
    const text = page.text.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
    expect(text).toContain("Audit trail");
    expect(text).toContain(AUDIT_ACTIONS["fees.override"]);
    expect(text).toContain(AUDIT_ACTIONS["receipt.approve"]);
    expect(text).toContain(AUDIT_ACTIONS["on-behalf.start"]);
    expect(text).toContain(checker.email);
    expect(text).toContain(admin.email);
  });

  test("GET console/audit?customer= answers the same entries: the customer's and their account's", async () => {
    const res = await admin.client.get(`console/audit?customer=${customer.id}`);
    expectStatus(res, 200);
    const actions = new Set(res.json.body.map((e: { action: string }) => e.action));
    for (const action of ["fees.override", "receipt.record", "receipt.reverse", "on-behalf.end"]) {
      expect(actions).toContain(action);
    }
    const [entry] = await t.db.select().from(auditLog).where(eq(auditLog.action, "receipt.reverse"));
    expect(entry.before).toMatchObject({ status: "matched" });
    expect(entry.after).toMatchObject({ status: "reversed", reason: "Wrong customer" });
  });
});
