import { expect, test, vi } from "vitest";
import { createAdmin, expectStatus, signinApp, TestClock } from "../helpers/client.ts";
import { expectLedgerSound } from "../helpers/money.ts";
import { addMember, addRecipient, approve, paid, paymentAccount, setRule } from "../helpers/payments.ts";

/**
 * A payment's expected arrival counts from when it can go: customers are told it arrives so many
 * business days after it is sent. A payment that waited for approval over a weekend was still
 * expected on the day its quote had said, before it was even approved.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const MINUTE = 60_000;

test("a payment approved later is expected from its approval, and from its sending once sent", async () => {
  // Friday 6 March 2026, 23:50 UTC: a SEPA transfer arrives the next business day.
  const clock = new TestClock(Date.UTC(2026, 2, 6, 23, 50));
  const t = await signinApp({ clock });
  const admin = await createAdmin(t);
  const account = await paymentAccount(t, admin, { EUR: "1000.00" });
  const payer = await addMember(t, account, "payer");
  const approver = await addMember(t, account, "approver");
  const recipient = await addRecipient(t, account, { currency: "EUR", country: "FR" });
  await setRule(account.owner.client, { mode: "all" });

  const made = await paid(payer.client, { recipient_id: recipient, amount: "100.00", sell_currency: "EUR" });
  expect(made.status).toBe("pending_approval");
  expect(made.expected_arrival, "as quoted: Friday's next business day").toBe("2026-03-09T23:50:00.000Z");

  // Approved on Saturday just after midnight: it goes the next business day after the weekend.
  clock.advance(20 * MINUTE);
  expectStatus(await admin.client.get("console/payouts?rail=local"), 200); // keeps the desk's session alive
  const approved = await approve(approver.client, made.id);
  expectStatus(approved, 200);
  expect(approved.json.body.expected_arrival).toBe("2026-03-10T00:10:00.000Z");

  // The desk sends it 20 minutes later: the arrival counts from then.
  clock.advance(20 * MINUTE);
  expectStatus(await admin.client.post(`console/payouts/${made.id}/submit`, {}), 200);
  const sent = await approver.client.get(`account/payments/${made.id}`);
  expect(sent.json.body).toMatchObject({ status: "submitted", expected_arrival: "2026-03-10T00:30:00.000Z" });
  await expectLedgerSound(t.db);
});
