import { beforeAll, describe, expect, test, vi } from "vitest";
import { type Admin, expectStatus } from "../helpers/client.ts";
import { type MoneyApp, moneyApp } from "../helpers/money.ts";
import { addRecipient, paid, type PaymentAccount, paymentAccount } from "../helpers/payments.ts";

/**
 * An audit entry about a payment links to where the console shows it (the console has no page of
 * one payment): its row on the payout desk of its rail, filtered to it, whatever became of it. On
 * the audit screen and in the customer's trail on their console page.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;
let account: PaymentAccount;
/** Paid out by Faster Payments and arrived: on /console/local, no longer in its default queue. */
let arrived: number;
/** A SWIFT transfer failed at the desk: on /console/transfer. */
let failed: number;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  account = await paymentAccount(t, admin, { GBP: "10000.00" });
  const uk = await addRecipient(t, account, { name: "Mary Smith", currency: "GBP", country: "GB" });
  const hongKong = await addRecipient(t, account, { name: "Wong Ka Ho", currency: "HKD", country: "HK" });
  const pay = async (recipient: number) =>
    (await paid(account.owner.client, { recipient_id: recipient, amount: "100.00", sell_currency: "GBP" })).id;
  arrived = await pay(uk);
  expectStatus(await admin.client.post(`console/payouts/${arrived}/submit`, {}), 200);
  expectStatus(await admin.client.post(`console/payouts/${arrived}/complete`), 200);
  failed = await pay(hongKong);
  expectStatus(await admin.client.post(`console/payouts/${failed}/fail`, { reason: "Returned by the bank" }), 200);
});

const link = (id: number, queue: "local" | "transfer") =>
  `<a class="underline" href="/console/${queue}?payment=${id}">#${id}</a>`;

/** The page's <main>, where the screen is (the menus are outside). */
async function mainOf(path: string) {
  const page = await admin.client.get(path);
  expect(page.status, path).toBe(200);
  return page.text.slice(page.text.indexOf("<main"), page.text.indexOf("</main>"));
}

describe("a payment named by an audit entry", () => {
  test("links from the audit screen to its row on the desk of its rail", async () => {
    const main = await mainOf("/console/audit?action=payout.complete");
    expect(main).toContain(`payment: ${link(arrived, "local")}`);
    expect(await mainOf("/console/audit?action=payout.fail")).toContain(`payment: ${link(failed, "transfer")}`);
  });

  test("links from the customer's audit trail on their console page", async () => {
    const main = await mainOf(`/console/users/${account.owner.id}`);
    expect(main).toContain(link(arrived, "local"));
    expect(main).toContain(link(failed, "transfer"));
  });

  test("the link shows that one payment on the desk, though it ended and the queue shows work to do", async () => {
    expect(await mainOf("/console/local")).not.toContain(`data-payout-id="${arrived}"`);
    const main = await mainOf(`/console/local?payment=${arrived}`);
    expect(main).toContain(`data-payout-id="${arrived}"`);
    expect(main.match(/data-payout-id="/g)).toHaveLength(1);
    expect(main).toContain(`Payment #${arrived} only.`);
    // The desk's call keeps to it as well, when the island reads the queue again.
    const res = await admin.client.get(`console/payouts?rail=transfer&payment=${failed}`);
    expectStatus(res, 200);
    expect(res.json.body.items.map((p: { id: number }) => p.id)).toEqual([failed]);
  });
});
