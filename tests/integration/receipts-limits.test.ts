import { desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { consoleAlerts } from "../../db/schema-console.ts";
import { rateTables } from "../../db/schema-money.ts";
import { type Admin, anotherAdmin, type ClientResponse, expectStatus, HOUR } from "../helpers/client.ts";
import {
  balances,
  expectLedgerSound,
  type MoneyApp,
  moneyApp,
  type OpenCustomer,
  openCustomer,
  postReceipt,
} from "../helpers/money.ts";

/**
 * The approval amount cannot be got round by splitting (security review, ninth wave; decision 026
 * amended): three receipts of 49,000 GBP to one account, or a bank entry of 147,000 GBP broken
 * down into three transactions of 49,000, are not credited by one administrator. The approval
 * amount (50,000 GBP) judges a bank entry as a whole, and the receipts credited to an account
 * without a second administrator in the last 24 hours add up against it, at recording and at
 * allocation.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let t: MoneyApp;
let recorder: Admin;
let checker: Admin;
beforeAll(async () => {
  ({ t, admin: recorder } = await moneyApp());
  checker = await anotherAdmin(t);
});
afterAll(() => expectLedgerSound(t.db));

/** The message of the alert raised for a receipt. */
async function alertOf(receiptId: number): Promise<string | undefined> {
  const rows = await t.db.select().from(consoleAlerts).where(eq(consoleAlerts.kind, "receipt_approval"))
    .orderBy(desc(consoleAlerts.id));
  return rows.find((r) => (r.subject as { receipt_id?: number }).receipt_id === receiptId)?.message;
}

const statusOf = (res: ClientResponse) => {
  expectStatus(res, 201);
  return res.json.body.status as string;
};

let ada: OpenCustomer;

describe("receipts credited without a second administrator add up over a rolling day", () => {
  let waiting: number[];

  test("three receipts of 49,000.00 GBP to one account: the first is credited, the other two wait, saying why", async () => {
    ada = await openCustomer(t);
    const answers = [];
    for (const n of [1, 2, 3]) {
      answers.push(
        await postReceipt(t, recorder, {
          amount: "49000.00",
          currency: "GBP",
          reference: `Invoice ${n} ${ada.accountRef}`,
        }),
      );
    }
    expect(answers.map(statusOf)).toEqual(["matched", "awaiting_approval", "awaiting_approval"]);
    expect(await balances(ada.client)).toEqual({ GBP: "49000.00" });
    waiting = answers.slice(1).map((a) => a.json.body.id);
    expect(await alertOf(waiting[0])).toBe(
      "A receipt of 49000.00 GBP would take the account's receipts credited without approval in 24 hours to " +
        "98000.00 GBP, over the 50000.00 GBP limit: a second administrator must approve it.",
    );
  });

  test("a receipt a second administrator approved does not count; up to the limit exactly is credited, a penny more waits", async () => {
    expectStatus(await checker.client.post(`console/receipts/${waiting[0]}/approve`), 200);
    const upTo = await postReceipt(t, recorder, {
      amount: "1000.00",
      currency: "GBP",
      reference: `Top ${ada.accountRef}`,
    });
    expect(statusOf(upTo)).toBe("matched");
    const penny = await postReceipt(t, recorder, {
      amount: "0.01",
      currency: "GBP",
      reference: `Penny ${ada.accountRef}`,
    });
    expect(statusOf(penny)).toBe("awaiting_approval");
    expect(await balances(ada.client)).toEqual({ GBP: "99000.00" });
  });

  test("in another currency it is measured in pounds too: 2.00 EUR on top waits", async () => {
    const euros = await postReceipt(t, recorder, {
      amount: "2.00",
      currency: "EUR",
      reference: `Euros ${ada.accountRef}`,
    });
    expect(statusOf(euros)).toBe("awaiting_approval");
  });

  test("another account has its own day: 49,000.00 GBP to someone else is credited", async () => {
    const bob = await openCustomer(t);
    const res = await postReceipt(t, recorder, { amount: "49000.00", currency: "GBP", reference: bob.accountRef });
    expect(statusOf(res)).toBe("matched");
  });

  test("two receipts of 30,000.00 GBP to one account at the same moment: one is credited, the other waits", async () => {
    const cleo = await openCustomer(t);
    const answers = await Promise.all(
      [1, 2].map((n) =>
        postReceipt(t, recorder, { amount: "30000.00", currency: "GBP", reference: `At once ${n} ${cleo.accountRef}` })
      ),
    );
    expect(answers.map(statusOf).sort()).toEqual(["awaiting_approval", "matched"]);
    expect(await balances(cleo.client)).toEqual({ GBP: "30000.00" });
  });
});

describe("allocating an unmatched receipt counts as crediting the account", () => {
  test("its recorder cannot allocate what would take the account past the limit (403, nothing changed); another administrator can", async () => {
    const dan = await openCustomer(t);
    const unmatched = [];
    for (const n of [1, 2]) {
      const res = await postReceipt(t, recorder, { amount: "30000.00", currency: "GBP", reference: `No ref ${n}` });
      expect(statusOf(res)).toBe("unmatched");
      unmatched.push(res.json.body.id);
    }
    const first = await recorder.client.post(`console/receipts/${unmatched[0]}/allocate`, {
      account_ref: dan.accountRef,
    });
    expectStatus(first, 200);
    expect(first.json.body).toMatchObject({ status: "allocated", approved_by: null });

    const second = await recorder.client.post(`console/receipts/${unmatched[1]}/allocate`, {
      account_ref: dan.accountRef,
    });
    expectStatus(second, 403);
    expect(second.json.error).toBe(
      "Allocating this receipt of 30000.00 GBP would take the account's receipts credited without approval in 24 " +
        "hours to 60000.00 GBP, over the 50000.00 GBP limit: you recorded it, so another administrator must " +
        "allocate it. Nothing was changed.",
    );
    expect(await balances(dan.client)).toEqual({ GBP: "30000.00" });
    const list = await recorder.client.get("console/receipts?status=unmatched");
    expect(list.json.body.map((r: { id: number }) => r.id)).toContain(unmatched[1]);

    const byChecker = await checker.client.post(`console/receipts/${unmatched[1]}/allocate`, {
      account_ref: dan.accountRef,
    });
    expectStatus(byChecker, 200);
    expect(byChecker.json.body).toMatchObject({
      status: "allocated",
      approved_by: { id: checker.id, email: checker.email },
    });
    expect(await balances(dan.client)).toEqual({ GBP: "60000.00" });
    // Allocated by a second administrator, it does not count: 30,000 (allocated alone) + 20,000 is the limit.
    const more = await postReceipt(t, recorder, { amount: "20000.00", currency: "GBP", reference: dan.accountRef });
    expect(statusOf(more)).toBe("matched");
    // The first allocation does count: a receipt recorded matched on top of it waits.
    const over = await postReceipt(t, recorder, { amount: "0.01", currency: "GBP", reference: dan.accountRef });
    expect(statusOf(over)).toBe("awaiting_approval");
  });
});

describe("an approval of a receipt that named no account judged that the money came, not whose it is", () => {
  test("its recorder still cannot allocate 200,000 GBP alone after another administrator approved it", async () => {
    const eve = await openCustomer(t);
    const res = await postReceipt(t, recorder, { amount: "200000.00", currency: "GBP", reference: "No account named" });
    expect(statusOf(res)).toBe("awaiting_approval");
    const id = res.json.body.id;
    const approved = await checker.client.post(`console/receipts/${id}/approve`);
    expectStatus(approved, 200);
    expect(approved.json.body).toMatchObject({ status: "unmatched", approved_by: { id: checker.id } });

    const alone = await recorder.client.post(`console/receipts/${id}/allocate`, { account_ref: eve.accountRef });
    expectStatus(alone, 403);
    expect(alone.json.error).toMatch(/you recorded it, so another administrator must allocate it/);
    expect(await balances(eve.client)).toEqual({});

    const byChecker = await checker.client.post(`console/receipts/${id}/allocate`, { account_ref: eve.accountRef });
    expectStatus(byChecker, 200);
    expect(await balances(eve.client)).toEqual({ GBP: "200000.00" });
    // Allocated by someone other than its recorder: it does not count towards the day.
    expect(statusOf(await postReceipt(t, recorder, { amount: "100.00", currency: "GBP", reference: eve.accountRef })))
      .toBe("matched");
  });
});

const XML = { "content-type": "application/xml" };

/** A statement with one booked credit entry of `parts` transactions, each naming `reference`. */
function splitEntry(id: string, currency: string, parts: string[], reference: string): string {
  const total = parts.reduce((sum, p) => sum + Number(p) * 100, 0) / 100;
  const tx = (amount: string, i: number) =>
    `<TxDtls><Refs><EndToEndId>E2E-${id}-${i}</EndToEndId></Refs><AmtDtls><TxAmt><Amt Ccy="${currency}">${amount}</Amt></TxAmt></AmtDtls>` +
    `<RltdPties><Dbtr><Nm>Payer ${i}</Nm></Dbtr></RltdPties><RmtInf><Ustrd>Invoice ${i} ${reference}</Ustrd></RmtInf></TxDtls>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>
<GrpHdr><MsgId>SPLIT-${id}</MsgId><CreDtTm>2026-03-01T20:00:00</CreDtTm></GrpHdr>
<Stmt><Id>S-${id}</Id><CreDtTm>2026-03-01T20:00:00</CreDtTm><Acct><Id><IBAN>GB33BUKB20201555555555</IBAN></Id></Acct>
<Ntry><Amt Ccy="${currency}">${
    total.toFixed(2)
  }</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-03-01</Dt></BookgDt><AcctSvcrRef>R-${id}</AcctSvcrRef>
<NtryDtls>${parts.map(tx).join("")}</NtryDtls></Ntry></Stmt></BkToCstmrStmt></Document>`;
}

describe("a bank entry broken down into transactions is judged as a whole", () => {
  test("an entry of 147,000.00 GBP in three transactions of 49,000.00 to one account: all three wait, nothing is credited", async () => {
    const eve = await openCustomer(t);
    const res = await recorder.client.post(
      "console/receipts/import",
      splitEntry("147k", "GBP", ["49000.00", "49000.00", "49000.00"], eve.accountRef),
      XML,
    );
    expectStatus(res, 200);
    expect(res.json.body.counts).toMatchObject({ credited: 0, held_for_approval: 3 });
    expect(await balances(eve.client)).toEqual({});
    expect(await alertOf(res.json.body.entries[0].receipt_id)).toBe(
      "A receipt of 49000.00 GBP is part of a bank entry of 147000.00 GBP, which is above the approval amount: " +
        "a second administrator must approve it.",
    );
  });

  test("an entry of 147,000.00 GBP in three transactions to three accounts: each waits too", async () => {
    const people = [await openCustomer(t), await openCustomer(t), await openCustomer(t)];
    const xml = splitEntry("147k-three", "GBP", ["49000.00", "49000.00", "49000.00"], "X")
      .replace("Invoice 0 X", `Invoice 0 ${people[0].accountRef}`)
      .replace("Invoice 1 X", `Invoice 1 ${people[1].accountRef}`)
      .replace("Invoice 2 X", `Invoice 2 ${people[2].accountRef}`);
    const res = await recorder.client.post("console/receipts/import", xml, XML);
    expectStatus(res, 200);
    expect(res.json.body.counts).toMatchObject({ credited: 0, held_for_approval: 3 });
    for (const person of people) expect(await balances(person.client)).toEqual({});
  });

  test("an entry of 30,000.00 GBP in three transactions to one account is credited; the import counts towards the day", async () => {
    const fay = await openCustomer(t);
    const small = await recorder.client.post(
      "console/receipts/import",
      splitEntry("30k", "GBP", ["10000.00", "10000.00", "10000.00"], fay.accountRef),
      XML,
    );
    expectStatus(small, 200);
    expect(small.json.body.counts).toMatchObject({ credited: 3, held_for_approval: 0 });
    expect(await balances(fay.client)).toEqual({ GBP: "30000.00" });
    // The next entry of 30,000.00 to the same account, the same day, takes it past the limit.
    const next = await recorder.client.post(
      "console/receipts/import",
      splitEntry("30k-again", "GBP", ["15000.00", "15000.00"], fay.accountRef),
      XML,
    );
    expectStatus(next, 200);
    expect(next.json.body.counts).toMatchObject({ credited: 1, held_for_approval: 1 });
    expect(await balances(fay.client)).toEqual({ GBP: "45000.00" });
  });
});

describe("the approval amount does not move with a rate the administrator sets", () => {
  test("250,000 EUR waits at the normal rate, and still waits after the same administrator sets EUR to 5.6", async () => {
    const euro = (await recorder.client.get("rates")).json.body.rates.EUR as string;
    const [gus, hal] = [await openCustomer(t), await openCustomer(t)];
    const normal = await postReceipt(t, recorder, { amount: "250000.00", currency: "EUR", reference: gus.accountRef });
    expect(statusOf(normal)).toBe("awaiting_approval");

    const lever = await recorder.client.put("console/rates", {
      base: "GBP",
      rates: { EUR: "5.6" },
      confirm_changes: ["EUR"],
    });
    expectStatus(lever, 200);
    // At 5.6 EUR a pound, 250,000 EUR is 44,642.86 GBP: it would pass. The day's highest value counts.
    const after = await postReceipt(t, recorder, { amount: "250000.00", currency: "EUR", reference: hal.accountRef });
    expect(statusOf(after)).toBe("awaiting_approval");
    expect(await alertOf(after.json.body.id)).toBe(
      "A receipt of 250000.00 EUR is above the approval amount: a second administrator must approve it.",
    );
    expect(await balances(hal.client)).toEqual({});

    // The day's total too is measured at the day's highest value: 45,000 GBP and 10,000 EUR
    // (1,785.71 GBP at 5.6, about 8,790 at the normal rate) pass the limit.
    const ivy = await openCustomer(t);
    expect(statusOf(await postReceipt(t, recorder, { amount: "45000.00", currency: "GBP", reference: ivy.accountRef })))
      .toBe("matched");
    expect(statusOf(await postReceipt(t, recorder, { amount: "10000.00", currency: "EUR", reference: ivy.accountRef })))
      .toBe("awaiting_approval");

    expectStatus(
      await recorder.client.put("console/rates", { base: "GBP", rates: { EUR: euro }, confirm_changes: ["EUR"] }),
      200,
    );
  });
});

// Last: it moves the clock a day on.
describe("the day rolls on", () => {
  test("24 hours after, the receipts of the day before no longer count", async () => {
    t.clock.advance(24 * HOUR + 1000);
    // Signed in again: the sessions of a day ago have ended.
    const later = await anotherAdmin(t);
    const next = await postReceipt(t, later, {
      amount: "49000.00",
      currency: "GBP",
      reference: `Next day ${ada.accountRef}`,
    });
    expect(statusOf(next)).toBe("matched");
  });
});

describe("the rates of the day are the tables in force in the 24 hours before the receipt", () => {
  test("a table in force 24 hours ago still counts; one replaced longer ago does not", async () => {
    const { t: day, admin: first } = await moneyApp();
    // The indicative table is written at start with the real time: dated here two days before the
    // test clock, so that it is the table in force a day ago and no later.
    await day.db.update(rateTables).set({ createdAt: new Date(day.clock.now() - 48 * HOUR) });
    expectStatus(
      await first.client.put("console/rates", { base: "GBP", rates: { EUR: "5.6" }, confirm_changes: ["EUR"] }),
      200,
    );
    // 23.5 hours after the change: the indicative table was in force 24 hours before, so it counts.
    day.clock.advance(23 * HOUR + 30 * 60 * 1000);
    const admin = await anotherAdmin(day);
    const kim = await openCustomer(day);
    const held = await postReceipt(day, admin, { amount: "250000.00", currency: "EUR", reference: kim.accountRef });
    expect(statusOf(held)).toBe("awaiting_approval");
    // A whole day after the change the indicative rate is no longer the day's: 250,000 EUR at 5.6 is
    // 44,642.86 GBP, under the limit, and the change has been in force (and alerted) for a day.
    day.clock.advance(HOUR);
    const later = await anotherAdmin(day);
    const lee = await openCustomer(day);
    const credited = await postReceipt(day, later, { amount: "250000.00", currency: "EUR", reference: lee.accountRef });
    expect(statusOf(credited)).toBe("matched");
    await expectLedgerSound(day.db);
  });
});
