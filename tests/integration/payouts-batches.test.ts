import { RESTRICTED_PAYOUT } from "../../lib/restriction.ts";
import { XMLParser } from "fast-xml-parser";
import { eq, inArray } from "drizzle-orm";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { notifications, payments } from "../../db/schema-payments.ts";
import { type Admin, expectStatus } from "../helpers/client.ts";
import { decimalOf, expectLedgerSound, minorOf, type MoneyApp, moneyApp } from "../helpers/money.ts";
import { addRecipient, balanceOf, paid, type PaymentAccount, paymentAccount } from "../helpers/payments.ts";
import { schemaErrors } from "../unit/bank-files-xsd.ts";
import { BY_THE_RAIL } from "../../server/payouts/answer.ts";

/**
 * SEPA files (issue 8 item 7; decisions 020 and 031): every approved EUR SEPA payment in no file
 * yet goes into one pain.001.001.03 file that validates against the official XSD, names the
 * company's account from the COMPANY_BANK_* settings as the debtor, and sends each payment once:
 * a payment is never in two files, even when two exports run at once.
 */

vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

/** The company's account, as production would set it: a euro-area account, so no creditor needs a BIC. */
const BANK = {
  COMPANY_BANK_NAME: "Commerzbank",
  COMPANY_BANK_ACCOUNT_NAME: "Portal Payments GmbH Kundengeld",
  COMPANY_BANK_IBAN: "DE89 3704 0044 0532 0130 00",
  COMPANY_BANK_BIC: "COBADEFFXXX",
};

let t: MoneyApp;
let admin: Admin;
let account: PaymentAccount;
let france: number, germany: number, switzerland: number, uk: number;

beforeAll(async () => {
  // Funding of 100,000 EUR would wait for a second administrator (decision 026): not this file's concern.
  ({ t, admin } = await moneyApp({ env: { ...BANK, RECEIPT_APPROVAL_GBP: "10000000" } }));
  account = await paymentAccount(t, admin, { EUR: "100000.00", GBP: "10000.00" });
  france = await addRecipient(t, account, {
    name: "Élodie Müller & Fils",
    currency: "EUR",
    country: "FR",
    details: { iban: "FR1420041010050500013M02606" },
  });
  germany = await addRecipient(t, account, {
    name: "Jörg Schäfer",
    currency: "EUR",
    country: "DE",
    details: { iban: "DE02120300000000202051", bic: "BYLADEM1001" },
  });
  // Switzerland is in SEPA but not in the EEA: a transfer there needs the bank's BIC, which this lacks.
  switzerland = await addRecipient(t, account, {
    name: "Heidi Keller",
    currency: "EUR",
    country: "CH",
    details: { iban: "CH9300762011623852957" },
  });
  uk = await addRecipient(t, account, { name: "Mary Smith", currency: "GBP", country: "GB" });
});

const pay = (recipient: number, amount: string, reference = "Invoice 17", currency = "EUR") =>
  paid(account.owner.client, { recipient_id: recipient, amount, sell_currency: currency }, reference);

const exportFile = () => admin.client.post("console/payouts/batches", { scheme: "sepa" });

/** Every payment still waiting for a file leaves in one, so each test starts with none waiting. */
async function clearWaiting() {
  const res = await exportFile();
  if (res.status !== 409) expectStatus(res, 201);
}

// deno-lint-ignore no-explicit-any
type Node = Record<string, any>;
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  parseTagValue: false,
  isArray: (name) => name === "CdtTrfTxInf",
});
const documentOf = (xml: string): Node => parser.parse(xml).Document.CstmrCdtTrfInitn;

async function fileOf(batchId: number) {
  const res = await admin.client.get(`console/payouts/batches/${batchId}/file`);
  expectStatus(res, 200);
  return res;
}

describe("a SEPA file", () => {
  test("holds every approved EUR SEPA payment once, validates against the XSD and names the company as debtor", async () => {
    await clearWaiting();
    const a = await pay(france, "250.00", "Facture 2026/118");
    const b = await pay(germany, "1000.50", "Rechnung 4711");
    const local = await paid(account.owner.client, { recipient_id: uk, amount: "10.00", sell_currency: "GBP" });
    const before = await balanceOf(account.owner.client, "EUR");

    // What the file pays is what arrives: the amount sent less the transfer fee.
    const arrives = [a, b].map((p) => p.buy_amount as string);
    const total = decimalOf(arrives.reduce((sum, amount) => sum + minorOf(amount, 2), 0n), 2);

    const res = await exportFile();
    expectStatus(res, 201);
    const batch = res.json.body;
    expect(batch.payments.map((p: { id: number }) => p.id)).toEqual([a.id, b.id]);
    expect(batch).toMatchObject({
      scheme: "sepa",
      currency: "EUR",
      payment_count: 2,
      total,
      created_by: { id: admin.id },
      left_out: [],
      test_details: false,
    });
    expect(batch.message_id).toMatch(/^PAYOUTS-\d{8}-\d+$/);
    expect(batch.file_name).toBe(`${batch.message_id}.xml`);
    // Transliterated names are reported, so the desk sees what the bank will.
    expect(batch.changes).toEqual(expect.arrayContaining([
      { payment_id: a.id, field: "creditor_name", given: "Élodie Müller & Fils", written: "Elodie Mueller + Fils" },
    ]));

    const file = await fileOf(batch.id);
    expect(file.headers.get("content-type")).toBe("application/xml; charset=utf-8");
    expect(file.headers.get("content-disposition")).toBe(`attachment; filename="${batch.file_name}"`);
    expect(await schemaErrors("pain.001.001.03.xsd", file.text)).toEqual([]);
    const doc = documentOf(file.text);
    expect(doc.GrpHdr).toMatchObject({ MsgId: batch.message_id, NbOfTxs: "2", CtrlSum: total });
    expect(doc.GrpHdr.InitgPty.Nm).toBe("Portal Payments GmbH Kundengeld");
    expect(doc.PmtInf.Dbtr.Nm).toBe("Portal Payments GmbH Kundengeld");
    expect(doc.PmtInf.DbtrAcct.Id.IBAN).toBe("DE89370400440532013000");
    expect(doc.PmtInf.DbtrAgt.FinInstnId.BIC).toBe("COBADEFFXXX");
    const lines = doc.PmtInf.CdtTrfTxInf as Node[];
    expect(lines.map((l) => l.PmtId.EndToEndId)).toEqual([`PAYMENT-${a.id}`, `PAYMENT-${b.id}`]);
    expect(lines.map((l) => l.Amt.InstdAmt["#text"])).toEqual(arrives);
    expect(lines.map((l) => l.CdtrAcct.Id.IBAN)).toEqual(["FR1420041010050500013M02606", "DE02120300000000202051"]);
    expect(lines[1].CdtrAgt.FinInstnId.BIC).toBe("BYLADEM1001");
    expect(lines.map((l) => l.RmtInf.Ustrd)).toEqual(["Facture 2026/118", "Rechnung 4711"]);

    // Sent: each payment submitted with the batch and its end-to-end id; paid out in the ledger.
    const rows = await t.db.select().from(payments).where(inArray(payments.id, [a.id, b.id, local.id]));
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const p of [a, b]) {
      expect(byId.get(p.id)).toMatchObject({
        status: "submitted",
        batchId: batch.id,
        railReference: `PAYMENT-${p.id}`,
      });
    }
    expect(byId.get(local.id), "a Faster Payments payment is in no SEPA file").toMatchObject({
      status: "approved",
      batchId: null,
    });
    const after = await balanceOf(account.owner.client, "EUR");
    expect(after.available).toBe(before.available);
    expect(after.held).toBe("0.00");
    await expectLedgerSound(t.db);
    // The customer sees it sent, exported in a file, and is told.
    const seen = await account.owner.client.get(`account/payments/${a.id}`);
    expect(seen.json.body.status).toBe("submitted");
    expect(seen.json.body.events.map((e: { event: string }) => e.event)).toEqual(["created", "exported"]);
    const told = await t.db.select().from(notifications).where(
      eq(notifications.link, `/account/pendingpayments/${a.id}`),
    );
    expect(told.map((n) => n.kind)).toEqual(["payment_sent"]);

    // The same bytes every time it is downloaded; the list shows it.
    expect((await fileOf(batch.id)).text).toBe(file.text);
    const listed = await admin.client.get("console/payouts/batches");
    expectStatus(listed, 200);
    expect(listed.json.body[0]).toEqual({
      id: batch.id,
      scheme: "sepa",
      message_id: batch.message_id,
      currency: "EUR",
      payment_count: 2,
      total,
      created_by: batch.created_by,
      created_at: batch.created_at,
      file_name: batch.file_name,
    });
  });

  test("a payment the file cannot carry is left out with why, and stays approved for the desk", async () => {
    await clearWaiting();
    const fine = await pay(france, "20.00");
    const noBic = await pay(switzerland, "30.00");
    const res = await exportFile();
    expectStatus(res, 201);
    expect(res.json.body.payments.map((p: { id: number }) => p.id)).toEqual([fine.id]);
    expect(res.json.body.left_out).toEqual([{
      payment_id: noBic.id,
      problems: [expect.stringMatching(/BIC is needed/), BY_THE_RAIL],
    }]);
    const [row] = await t.db.select().from(payments).where(eq(payments.id, noBic.id));
    expect([row.status, row.batchId]).toEqual(["approved", null]);
    // Only it waits now: no file can be made, and the answer says why.
    const again = await exportFile();
    expectStatus(again, 409);
    expect(again.json.error).toMatch(/none of the 1 approved SEPA payments can go into one.*BIC is needed/);
    expectStatus(
      await admin.client.post(`console/payouts/${noBic.id}/fail`, { reason: "No BIC for a Swiss bank." }),
      200,
    );
    expectStatus(await exportFile(), 409);
    await expectLedgerSound(t.db);
  });

  test("a payment in a file is never in another: the next file has only the payments approved since", async () => {
    await clearWaiting();
    const first = await pay(france, "11.00");
    const one = await exportFile();
    expectStatus(one, 201);
    const second = await pay(germany, "12.00");
    const two = await exportFile();
    expectStatus(two, 201);
    expect(one.json.body.payments.map((p: { id: number }) => p.id)).toEqual([first.id]);
    expect(two.json.body.payments.map((p: { id: number }) => p.id)).toEqual([second.id]);
    expect(two.json.body.message_id).not.toBe(one.json.body.message_id);
    const empty = await exportFile();
    expectStatus(empty, 409);
    expect(empty.json.error).toBe("No approved SEPA payment is waiting for a file.");
  });

  test("two exports at once: every payment is in exactly one file", async () => {
    await clearWaiting();
    const made: number[] = [];
    for (let i = 0; i < 24; i++) made.push((await pay(i % 2 ? france : germany, `${5 + i}.00`)).id);
    const answers = await Promise.all([exportFile(), exportFile(), exportFile()]);
    const files = answers.filter((r) => r.status === 201);
    for (const r of answers) expect([201, 409]).toContain(r.status);
    const inFiles = files.flatMap((r) => r.json.body.payments.map((p: { id: number }) => p.id) as number[]);
    expect(inFiles.sort((x, y) => x - y)).toEqual(made);
    // The files themselves: each payment's end-to-end id in one file only.
    const ids = [];
    for (const r of files) {
      const text = (await fileOf(r.json.body.id)).text;
      ids.push(...(documentOf(text).PmtInf.CdtTrfTxInf as Node[]).map((l) => l.PmtId.EndToEndId));
    }
    expect(ids.sort()).toEqual(made.map((id) => `PAYMENT-${id}`).sort());
    const rows = await t.db.select().from(payments).where(inArray(payments.id, made));
    for (const row of rows) expect(files.map((r) => r.json.body.id)).toContain(row.batchId);
    await expectLedgerSound(t.db);
  });

  test("after the file: each payment is completed, or failed when the bank returns it, one by one", async () => {
    await clearWaiting();
    const before = await balanceOf(account.owner.client, "EUR");
    const arrives = await pay(france, "70.00");
    const returned = await pay(germany, "80.00");
    expectStatus(await exportFile(), 201);
    expectStatus(await admin.client.post(`console/payouts/${arrives.id}/complete`), 200);
    const failed = await admin.client.post(`console/payouts/${returned.id}/fail`, {
      reason: "Returned by the bank: account closed (AC04).",
    });
    expectStatus(failed, 200);
    expect(failed.json.body.payment).toMatchObject({ status: "failed", batch_id: expect.any(Number) });
    const after = await balanceOf(account.owner.client, "EUR");
    // Back in full: only the payment that arrived left the balance.
    expect(decimalOf(minorOf(before.available, 2) - minorOf(after.available, 2), 2)).toBe("70.00");
    await expectLedgerSound(t.db);
  });

  test("each customer whose payments went into the file finds it in their own audit trail", async () => {
    await clearWaiting();
    const other = await paymentAccount(t, admin, { EUR: "1000.00" });
    const theirRecipient = await addRecipient(t, other, {
      currency: "EUR",
      country: "FR",
      details: { iban: "FR1420041010050500013M02606" },
    });
    const mine = [await pay(france, "11.00"), await pay(germany, "12.00")].map((p) => p.id);
    const theirs =
      (await paid(other.owner.client, { recipient_id: theirRecipient, amount: "13.00", sell_currency: "EUR" })).id;
    const made = await exportFile();
    expectStatus(made, 201);
    const batchId = made.json.body.id;

    type Entry = { action: string; subject_id: number | null; account_ref: string | null; before: Node; after: Node };
    const trailOf = async (customer: number) =>
      ((await admin.client.get(`console/audit?customer=${customer}`)).json.body as Entry[])
        .filter((e) => e.action === "payout.batch" && e.after?.batch_id === batchId);
    const [own] = await trailOf(account.owner.id);
    expect(own).toMatchObject({
      subject_id: account.owner.id,
      account_ref: account.owner.accountRef,
      before: { batch_id: batchId, payment_ids: mine, status: "approved" },
      after: { batch_id: batchId, payment_ids: mine, status: "submitted" },
    });
    const [others] = await trailOf(other.owner.id);
    expect(others.after).toEqual({ batch_id: batchId, payment_ids: [theirs], status: "submitted" });
    // The file's own entry, with all its payments, is still there.
    const all = (await admin.client.get("console/audit")).json.body as Entry[];
    expect(all.filter((e) => e.action === "payout.batch" && e.subject_id === null && e.after.batch_id === batchId))
      .toHaveLength(1);
  });

  test("a file is asked for by scheme, and an unknown file is not found", async () => {
    const res = await admin.client.post("console/payouts/batches", { scheme: "swift" });
    expectStatus(res, 422);
    expect(res.json.fields).toEqual({ scheme: 'scheme is "sepa".' });
    expectStatus(await admin.client.get("console/payouts/batches/999999/file"), 404);
    expectStatus(await admin.client.get("console/payouts/batches/abc/file"), 422);
  });
});

describe("a restricted customer's payments (decision 048, amended)", () => {
  test("stay approved and out of the file, with why, until the restriction is lifted", async () => {
    await clearWaiting();
    const held = await pay(france, "30.00", "Held back");
    const path = `console/users/${account.owner.id}/restrict`;
    expectStatus(await admin.client.post(path, { reason: "Source of funds under review" }), 200);
    const refused = await exportFile();
    expectStatus(refused, 409);
    expect(refused.json.error).toContain(RESTRICTED_PAYOUT);
    expect((await account.owner.client.get(`account/payments/${held.id}`)).json.body.status).toBe("approved");

    expectStatus(await admin.client.delete(path, { reason: "Source of funds shown" }), 200);
    const made = await exportFile();
    expectStatus(made, 201);
    expect(made.json.body.payments.map((p: { id: number }) => p.id)).toEqual([held.id]);
  });

  test("the refusal says each reason once, with the payments it applies to", async () => {
    await clearWaiting();
    const held = [await pay(france, "31.00", "Held 1"), await pay(germany, "32.00", "Held 2")].map((p) => p.id);
    const path = `console/users/${account.owner.id}/restrict`;
    expectStatus(await admin.client.post(path, { reason: "Source of funds under review" }), 200);
    const refused = await exportFile();
    expectStatus(refused, 409);
    const error: string = refused.json.error;
    expect(error).toContain(
      `none of the 2 approved SEPA payments can go into one. Payments #${held[0]} and #${
        held[1]
      }: ${RESTRICTED_PAYOUT}`,
    );
    expect(error.split("The customer is restricted")).toHaveLength(2);
    expectStatus(await admin.client.delete(path, { reason: "Source of funds shown" }), 200);
    await clearWaiting();
  });
});
