import { desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { auditLog } from "../../db/schema.ts";
import type { Admin } from "../helpers/client.ts";
import { type MoneyApp, moneyApp, postReceipt } from "../helpers/money.ts";
import { addMember, type PaymentAccount, paymentAccount } from "../helpers/payments.ts";

/**
 * A receipt's audit entries are for the customer who holds the account it was credited to
 * (exploratory check of the operations console: "Recorded a receipt" and "Allocated a receipt"
 * showed an empty "For whom"): its first owner, as the console names an account's customer
 * (decision 064), not another owner who joined later. An unmatched receipt is nobody's yet.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let t: MoneyApp;
let admin: Admin;
let account: PaymentAccount;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  account = await paymentAccount(t, admin);
  await addMember(t, account, "owner");
});

async function latestEntry(action: "receipt.record" | "receipt.allocate") {
  const [entry] = await t.db.select().from(auditLog).where(eq(auditLog.action, action))
    .orderBy(desc(auditLog.id)).limit(1);
  return { subject: entry.subjectId, account: entry.accountId };
}

describe("a receipt's audit entry names its customer", () => {
  test("a receipt matched to an account is for the account's first owner", async () => {
    const res = await postReceipt(t, admin, { amount: "20.00", currency: "GBP", reference: account.owner.accountRef });
    expect(res.status).toBe(201);
    expect(res.json.body.status).toBe("matched");
    expect(await latestEntry("receipt.record")).toEqual({ subject: account.owner.id, account: account.accountId });
  });

  test("an unmatched receipt is nobody's; allocated, it is the first owner's", async () => {
    const res = await postReceipt(t, admin, { amount: "21.00", currency: "GBP", reference: "No account named here" });
    expect(res.status).toBe(201);
    expect(res.json.body.status).toBe("unmatched");
    expect(await latestEntry("receipt.record")).toEqual({ subject: null, account: null });

    const allocated = await admin.client.post(`console/receipts/${res.json.body.id}/allocate`, {
      account_ref: account.owner.accountRef,
    });
    expect(allocated.status).toBe(200);
    expect(await latestEntry("receipt.allocate")).toEqual({ subject: account.owner.id, account: account.accountId });
  });
});
