import { and, eq, isNull, sql } from "drizzle-orm";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { consoleAlerts } from "../../db/schema-console.ts";
import { ledgerAccounts, receipts } from "../../db/schema-money.ts";
import { type Admin, expectStatus, HOUR } from "../helpers/client.ts";
import { expectLedgerSound, type MoneyApp, moneyApp } from "../helpers/money.ts";
import { addRecipient, balanceOf, paid, type PaymentAccount, paymentAccount } from "../helpers/payments.ts";
import { schemaErrorsOf } from "../unit/bank-files-xsd.ts";
import { alertUnmatchedReceipts } from "../../server/alerts/triggers.ts";

/**
 * A payout the beneficiary's bank sent back (decision 093): the company's statement brings it as a
 * credit, a SEPA return (PMNT/ICDT/RRTN, with the return's reason) carrying our end-to-end id. It is
 * held against the payment it returns, never a customer's money: nobody may allocate it, and the
 * desk's failing the payment (the customer's refund) settles it, so the customer is paid back once
 * and the ledger's copy of the bank balance stays the bank's.
 */

vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

const IBAN = "DE89370400440532013000";
const BANK = {
  COMPANY_BANK_NAME: "Commerzbank",
  COMPANY_BANK_ACCOUNT_NAME: "Portal Payments GmbH Kundengeld",
  COMPANY_BANK_IBAN: IBAN,
  COMPANY_BANK_BIC: "COBADEFFXXX",
};

let t: MoneyApp;
let admin: Admin;
let account: PaymentAccount;
let france: number;

beforeAll(async () => {
  ({ t, admin } = await moneyApp({ env: { ...BANK, RECEIPT_APPROVAL_GBP: "10000000" } }));
  account = await paymentAccount(t, admin, { EUR: "5000.00" });
  france = await addRecipient(t, account, {
    name: "Elodie Martin",
    currency: "EUR",
    country: "FR",
    details: { iban: "FR1420041010050500013M02606" },
  });
});

/**
 * A payment sent to the bank in a SEPA file. Its reference names the customer's own account_ref, as
 * a customer may write: the bank gives the text back with the return, where it must credit nobody.
 */
async function sentPayment(amount: string): Promise<{ id: number; buy_amount: string }> {
  const payment = await paid(
    account.owner.client,
    { recipient_id: france, amount, sell_currency: "EUR" },
    `Rent ${account.owner.accountRef}`,
  );
  expectStatus(await admin.client.post("console/payouts/batches", { scheme: "sepa" }), 201);
  return payment;
}

let statements = 0;

/** The company's statement with one credit: the bank's return of `endToEndId` unless `returned` is false. */
function statementReturning(endToEndId: string, amount: string, text: string, returned = true): string {
  const id = ++statements;
  const code = returned
    ? "<Cd>PMNT</Cd><Fmly><Cd>ICDT</Cd><SubFmlyCd>RRTN</SubFmlyCd></Fmly>"
    : "<Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly>";
  const why = returned ? "<RtrInf><Rsn><Cd>AC04</Cd></Rsn><AddtlInf>Account closed</AddtlInf></RtrInf>" : "";
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>
<GrpHdr><MsgId>RETURNS-${id}</MsgId><CreDtTm>2026-11-28T20:00:00</CreDtTm></GrpHdr>
<Stmt><Id>STMT-${id}</Id><CreDtTm>2026-11-28T20:00:00</CreDtTm><Acct><Id><IBAN>${IBAN}</IBAN></Id></Acct>
<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">10000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-28</Dt></Dt></Bal>
<Ntry><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>
<BookgDt><Dt>2026-11-28</Dt></BookgDt><AcctSvcrRef>RTN-${id}</AcctSvcrRef>
<BkTxCd><Domn>${code}</Domn></BkTxCd>
<NtryDtls><TxDtls><Refs><EndToEndId>${endToEndId}</EndToEndId></Refs>
<RltdPties><Dbtr><Nm>Elodie Martin</Nm></Dbtr></RltdPties><RmtInf><Ustrd>${text}</Ustrd></RmtInf>${why}</TxDtls></NtryDtls>
</Ntry></Stmt></BkToCstmrStmt></Document>`;
}

async function importFile(xml: string) {
  expect(await schemaErrorsOf("camt.053.001.02.xsd", [xml])).toEqual([[]]);
  const res = await admin.client.post("console/receipts/import", xml, { "content-type": "application/xml" });
  expectStatus(res, 200);
  return res.json.body;
}

/** The ledger's copy of the company's EUR bank balance (incoming_funds: negative is money held). */
async function bankCopy(): Promise<number> {
  const [row] = await t.db.select({ balance: ledgerAccounts.balance }).from(ledgerAccounts)
    .where(
      and(
        eq(ledgerAccounts.kind, "house"),
        eq(ledgerAccounts.purpose, "incoming_funds"),
        eq(ledgerAccounts.currency, "EUR"),
      ),
    );
  return row.balance;
}

async function receiptOf(id: number) {
  const [row] = await t.db.select().from(receipts).where(eq(receipts.id, id));
  return row;
}

const openReturnAlerts = (receiptId: number) =>
  t.db.select().from(consoleAlerts).where(and(
    eq(consoleAlerts.kind, "payout_failed"),
    sql`json_extract(${consoleAlerts.subject}, '$.receipt_id') = ${receiptId}`,
    isNull(consoleAlerts.resolvedAt),
  ));

const allocate = (receiptId: number) =>
  admin.client.post(`console/receipts/${receiptId}/allocate`, { account_ref: account.owner.accountRef });

describe("a payout the bank sent back", () => {
  test("is held against its payment, credits nobody, and cannot be allocated; failing the payment refunds the customer once and settles it", async () => {
    const payment = await sentPayment("300.00");
    const sent = await balanceOf(account.owner.client, "EUR");
    const bankBefore = await bankCopy();

    const imported = await importFile(
      statementReturning(`PAYMENT-${payment.id}`, payment.buy_amount, `Rent ${account.owner.accountRef}`),
    );
    expect(imported.counts).toMatchObject({ credited: 0, unmatched: 0, payout_returns: 1 });
    const [entry] = imported.entries;
    expect(entry).toMatchObject({ result: "payout_return", payment_id: payment.id, account_ref: null });
    // Its text named the customer's account_ref: not a deposit of theirs all the same.
    expect(await balanceOf(account.owner.client, "EUR")).toEqual(sent);

    const listed = await admin.client.get("console/receipts");
    expect(listed.json.body.find((r: { id: number }) => r.id === entry.receipt_id)).toMatchObject({
      status: "unmatched",
      returns_payment_id: payment.id,
    });
    const [alert] = await openReturnAlerts(entry.receipt_id);
    expect(alert.message).toContain(`payment ${payment.id} of ${payment.buy_amount} EUR to Elodie Martin came back`);
    expect(alert.message).toContain("reason AC04: Account closed");
    expect(alert.message).toContain(`fail payment ${payment.id} on the payout desk`);

    const refused = await allocate(entry.receipt_id);
    expectStatus(refused, 409);
    expect(refused.json.error).toBe(
      `Receipt ${entry.receipt_id} is payment ${payment.id} sent back by the beneficiary's bank, not a customer's money: ` +
        `it cannot be allocated. Fail payment ${payment.id} on the payout desk to refund its customer; ` +
        "the receipt is then settled against it. Nothing was changed.",
    );
    // Nor taken back out by hand: the desk's failing the payment is what settles it.
    const reversed = await admin.client.post(`console/receipts/${entry.receipt_id}/reverse`, { reason: "Not ours" });
    expectStatus(reversed, 409);
    expect(reversed.json.error).toContain("it cannot be reversed. Fail payment");
    expect(await balanceOf(account.owner.client, "EUR")).toEqual(sent);

    const failed = await admin.client.post(`console/payouts/${payment.id}/fail`, {
      reason: `Returned by the beneficiary's bank (receipt ${entry.receipt_id}): account closed`,
    });
    expectStatus(failed, 200);
    // Refunded once: the 300.00 EUR it sent (its fee included) is back, and nothing more.
    const refunded = await balanceOf(account.owner.client, "EUR");
    expect(Number(refunded.available) - Number(sent.available)).toBe(300);
    const settled = await receiptOf(entry.receipt_id);
    expect(settled).toMatchObject({ status: "reversed", returnsPaymentId: payment.id });
    expect(settled.closedReason).toBe(
      `Settled against payment ${payment.id}, which this returns: it failed and its customer was refunded.`,
    );
    expect(await openReturnAlerts(entry.receipt_id)).toEqual([]);
    // The transfer went out and came back: the bank's balance is what it was, and so is the ledger's copy.
    expect(await bankCopy()).toBe(bankBefore);
    expectStatus(await allocate(entry.receipt_id), 409);
    expect(await balanceOf(account.owner.client, "EUR")).toEqual(refunded);
    await expectLedgerSound(t.db);
  });

  test("returning a payment already failed and refunded is recognised, settled at once, and cannot be allocated", async () => {
    const payment = await sentPayment("120.00");
    expectStatus(
      await admin.client.post(`console/payouts/${payment.id}/fail`, { reason: "The bank telephoned: account closed" }),
      200,
    );
    const refunded = await balanceOf(account.owner.client, "EUR");
    const bankBefore = await bankCopy();

    const imported = await importFile(statementReturning(`PAYMENT-${payment.id}`, payment.buy_amount, "Rent"));
    const [entry] = imported.entries;
    expect(entry).toMatchObject({ result: "payout_return", payment_id: payment.id });
    expect(await receiptOf(entry.receipt_id)).toMatchObject({
      status: "reversed",
      closedReason:
        `Settled against payment ${payment.id}, which this returns: it had already failed and its customer was refunded.`,
    });
    expect(await openReturnAlerts(entry.receipt_id)).toEqual([]);
    const refused = await allocate(entry.receipt_id);
    expectStatus(refused, 409);
    expect(refused.json.error).toContain(`Receipt ${entry.receipt_id} is payment ${payment.id} sent back`);
    expect(await balanceOf(account.owner.client, "EUR")).toEqual(refunded);
    expect(await bankCopy()).toBe(bankBefore);
    await expectLedgerSound(t.db);

    // The bank sending the same payment back again is money it holds: an unmatched receipt for a person, credited to nobody.
    const again = await importFile(
      statementReturning(`PAYMENT-${payment.id}`, payment.buy_amount, `Rent ${account.owner.accountRef}`),
    );
    expect(again.entries[0]).toMatchObject({ result: "unmatched", payment_id: null, account_ref: null });
    expect(await balanceOf(account.owner.client, "EUR")).toEqual(refunded);
  });

  test("a payer's own transfer quoting our end-to-end id is not a return: the bank did not mark it as one", async () => {
    const payment = await sentPayment("10.00");
    const before = await balanceOf(account.owner.client, "EUR");
    const imported = await importFile(
      statementReturning(`PAYMENT-${payment.id}`, "25.00", `Top-up ${account.owner.accountRef}`, false),
    );
    expect(imported.entries[0]).toMatchObject({
      result: "credited",
      payment_id: null,
      account_ref: account.owner.accountRef,
    });
    expect(Number((await balanceOf(account.owner.client, "EUR")).available) - Number(before.available)).toBe(25);
    await expectLedgerSound(t.db);
  });
});

type DeskRow = { id: number; status: string; returned: unknown; actions: { fail: boolean; complete: boolean } };

/** The local payout desk's queue, as the desk's island asks for it. */
async function desk(query = ""): Promise<DeskRow[]> {
  const res = await admin.client.get(`console/payouts?rail=local${query}`);
  expectStatus(res, 200);
  return res.json.body.items;
}

const openAlertsAbout = (receiptId: number) =>
  t.db.select().from(consoleAlerts).where(and(
    sql`json_extract(${consoleAlerts.subject}, '$.receipt_id') = ${receiptId}`,
    isNull(consoleAlerts.resolvedAt),
  ));

describe("the payout desk and a payout the bank sent back", () => {
  test("the payment's row says the bank returned it (receipt, amount, the bank's reason), the filter finds it, and failing it settles that", async () => {
    const payment = await sentPayment("80.00");
    const other = await sentPayment("15.00");
    // The bank keeps a charge of 0.50.
    const back = (Number(payment.buy_amount) - 0.5).toFixed(2);
    const [entry] = (await importFile(statementReturning(`PAYMENT-${payment.id}`, back, "Rent"))).entries;
    expect(entry).toMatchObject({ result: "payout_return", payment_id: payment.id });
    const waiting = { receipt_id: entry.receipt_id, amount: back, currency: "EUR", settled: false };

    const row = (await desk()).find((p) => p.id === payment.id)!;
    expect(row).toMatchObject({
      status: "submitted",
      returned: { ...waiting, reason: "reason AC04: Account closed" },
      actions: { fail: true, complete: false },
    });
    // It did not arrive: the desk cannot mark it so, which would leave the return waiting for good.
    const arrived = await admin.client.post(`console/payouts/${payment.id}/complete`);
    expectStatus(arrived, 409);
    expect(arrived.json.error).toBe(
      `Payment ${payment.id} came back from the beneficiary's bank (receipt ${entry.receipt_id}): it did not ` +
        "arrive and cannot be marked arrived. Fail it to refund its customer; the receipt is then settled " +
        "against it. Nothing was changed.",
    );
    expect((await desk()).find((p) => p.id === payment.id)!.status).toBe("submitted");
    expect((await desk()).find((p) => p.id === other.id)!.returned).toBeNull();
    // The filter: payments sent back whose return waits, and no others.
    expect((await desk("&returned=true")).map((p) => p.id)).toEqual([payment.id]);
    const wrong = await admin.client.get("console/payouts?rail=local&returned=yes");
    expectStatus(wrong, 422);
    expect(JSON.stringify(wrong.json)).toContain("returned is true or false.");

    expectStatus(
      await admin.client.post(`console/payouts/${payment.id}/fail`, {
        reason: `Returned by the beneficiary's bank (receipt ${entry.receipt_id}): reason AC04: Account closed`,
      }),
      200,
    );
    expect((await desk("&status=failed")).find((p) => p.id === payment.id)!.returned).toMatchObject({
      ...waiting,
      settled: true,
    });
    expect((await desk("&returned=true")).map((p) => p.id)).toEqual([]);
  });

  test("a return of a payment marked arrived keeps being brought to mind, saying to ask the bank, until it is dealt with", async () => {
    const payment = await sentPayment("40.00");
    expectStatus(await admin.client.post(`console/payouts/${payment.id}/complete`), 200);
    const [entry] = (await importFile(statementReturning(`PAYMENT-${payment.id}`, payment.buy_amount, "Rent")))
      .entries;
    expect(entry).toMatchObject({ result: "payout_return", payment_id: payment.id });

    // Its alert, the receipts list and the desk all say the payment was marked arrived: ask the bank.
    const [alert] = await openReturnAlerts(entry.receipt_id);
    expect(alert.message).toContain(`payment ${payment.id} was marked arrived, so the desk cannot fail it`);
    expect(alert.message).toContain("ask the bank whether the payment arrived or came back");
    const listed = (await admin.client.get("console/receipts")).json.body
      .find((r: { id: number }) => r.id === entry.receipt_id);
    expect(listed).toMatchObject({ status: "unmatched", returns_payment_status: "completed" });
    const [row] = (await desk("&returned=true")).filter((p) => p.id === payment.id);
    expect(row).toMatchObject({ status: "completed", returned: { settled: false }, actions: { fail: false } });

    const resolved = await admin.client.post(`console/alerts/${alert.id}/resolve`, { note: "Asked the bank" });
    expectStatus(resolved, 200);
    const created = (await receiptOf(entry.receipt_id)).createdAt.getTime();
    const at = (hours: number) => new Date(created + hours * HOUR);

    // A day on, still waiting with no alert open: the hourly job reminds, once while that reminder is open.
    await alertUnmatchedReceipts(t.db, at(25));
    await alertUnmatchedReceipts(t.db, at(26));
    await alertUnmatchedReceipts(t.db, at(60));
    const [reminder, ...more] = await openAlertsAbout(entry.receipt_id);
    expect(more).toEqual([]);
    expect(reminder).toMatchObject({ kind: "unmatched_receipt" });
    expect(reminder.message).toBe(
      `Receipt ${entry.receipt_id} of ${payment.buy_amount} EUR is payment ${payment.id} sent back by the ` +
        `beneficiary's bank, still not settled and not to be allocated: payment ${payment.id} was marked arrived, ` +
        "so the desk cannot fail it: ask the bank whether the payment arrived or came back before anything is done.",
    );

    // Resolved, yet still waiting: a day after the last reminder, another.
    expectStatus(await admin.client.post(`console/alerts/${reminder.id}/resolve`, { note: "Bank asked again" }), 200);
    const last = reminder.createdAt.getTime();
    await alertUnmatchedReceipts(t.db, new Date(last + 23 * HOUR));
    expect(await openAlertsAbout(entry.receipt_id), "not before a day after the last").toEqual([]);
    await alertUnmatchedReceipts(t.db, new Date(last + 25 * HOUR));
    expect(await openAlertsAbout(entry.receipt_id)).toHaveLength(1);
    expectStatus(await allocate(entry.receipt_id), 409);
  });

  test("a return the desk settles closes its reminders too", async () => {
    const payment = await sentPayment("25.00");
    const [entry] = (await importFile(statementReturning(`PAYMENT-${payment.id}`, payment.buy_amount, "Rent")))
      .entries;
    const [alert] = await openReturnAlerts(entry.receipt_id);
    expectStatus(await admin.client.post(`console/alerts/${alert.id}/resolve`, { note: "Seen" }), 200);
    await alertUnmatchedReceipts(t.db, new Date((await receiptOf(entry.receipt_id)).createdAt.getTime() + 25 * HOUR));
    const [reminder] = await openAlertsAbout(entry.receipt_id);
    expect(reminder.message).toContain(`fail payment ${payment.id} on the payout desk to refund its customer`);
    // Its link opens the payment on its own payout desk, as the return's alert's does.
    expect(reminder.subject).toMatchObject({ payment_id: payment.id, desk: alert.subject.desk });
    expect(alert.subject.desk).toBe("local");

    expectStatus(
      await admin.client.post(`console/payouts/${payment.id}/fail`, { reason: "Returned: account closed" }),
      200,
    );
    expect(await openAlertsAbout(entry.receipt_id)).toEqual([]);
  });
});

describe("marking arrived a payment already marked arrived, whose return came after", () => {
  test("the desk says it is already arrived, not to fail it (which the desk cannot do to it)", async () => {
    const payment = await sentPayment("30.00");
    expectStatus(await admin.client.post(`console/payouts/${payment.id}/complete`), 200);
    const [entry] = (await importFile(statementReturning(`PAYMENT-${payment.id}`, payment.buy_amount, "Rent")))
      .entries;
    expect(entry).toMatchObject({ result: "payout_return", payment_id: payment.id });

    // A second administrator, on a desk page loaded before, clicks Arrived.
    const again = await admin.client.post(`console/payouts/${payment.id}/complete`);
    expectStatus(again, 409);
    expect(again.json.error).toMatch(new RegExp(`^Payment ${payment.id} cannot be marked completed: `));
    expect(again.json.error).not.toContain("Fail it");
  });
});
