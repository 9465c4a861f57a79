import { beforeAll, describe, expect, test, vi } from "vitest";
import { deserializeProps } from "../../lib/serialize.ts";
import { type Admin, expectStatus, type TestClient } from "../helpers/client.ts";
import { type MoneyApp, moneyApp } from "../helpers/money.ts";
import {
  addMember,
  addRecipient,
  type Member,
  paid,
  type PaymentAccount,
  paymentAccount,
  setRule,
} from "../helpers/payments.ts";

/**
 * The payment screens (issue 8 item 6) are rendered with everything they show, for the person
 * looking: the recipients with their rail's reference length, the pending list with what each may
 * do, a payment's page for its account only, and the dashboard's list of what waits for approval.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;
let account: PaymentAccount;
let payer: Member;
let approver: Member;
let viewer: Member;
let waiting: { id: number };

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  account = await paymentAccount(t, admin, { GBP: "1000.00" });
  payer = await addMember(t, account, "payer");
  approver = await addMember(t, account, "approver");
  viewer = await addMember(t, account, "viewer");
  const recipient = await addRecipient(t, account, { name: "Tom Atkins", currency: "GBP", country: "GB" });
  await setRule(account.owner.client, { mode: "all" });
  waiting = await paid(payer.client, { recipient_id: recipient, amount: "25.00", sell_currency: "GBP" });
});

type Island = { name: string; props: Record<string, unknown> };

async function islandsOn(client: TestClient, path: string): Promise<Island[]> {
  const res = await client.get(path);
  expectStatus(res, 200);
  return deserializeProps<Island[]>(/id="__islands">([^<]*)</.exec(res.text)![1]);
}

const island = (islands: Island[], name: string) => islands.find((i) => i.name === name)!;

describe("/account/payment", () => {
  test("offers the account's recipients with their rail and reference length, and the balances", async () => {
    const form = island(await islandsOn(payer.client, "/account/payment"), "PaymentForm");
    expect(form.props.recipients).toEqual([expect.objectContaining({
      name: "Tom Atkins",
      currency: "GBP",
      rail: "faster_payments",
      rail_name: "UK bank transfer (Faster Payments)",
      reference_max: 18,
    })]);
    expect(form.props.balances).toEqual([{ currency: "GBP", available: "975.00", held: "25.00" }]);
    expect(form.props.accountRef).toBe(account.owner.accountRef);
  });

  test("two recipients of one name come with the end of their account number only, to tell them apart", async () => {
    const first = await addRecipient(t, account, {
      name: "Ana Lima",
      currency: "EUR",
      country: "FR",
      details: { iban: "FR1420041010050500013M02606" },
    });
    const second = await addRecipient(t, account, {
      name: "Ana Lima",
      currency: "EUR",
      country: "DE",
      details: { iban: "DE89370400440532013000" },
    });
    const res = await payer.client.get("/account/payment");
    const form = island(await islandsOn(payer.client, "/account/payment"), "PaymentForm");
    const anas = (form.props.recipients as { id: number; account_ending: string | null }[])
      .filter((r) => r.id === first || r.id === second);
    expect(anas.map((r) => [r.id, r.account_ending])).toEqual([[first, "2606"], [second, "3000"]]);
    // The page carries no whole account number.
    expect(res.text).not.toContain("FR1420041010050500013M02606");
    expect(res.text).not.toContain("DE89370400440532013000");
    // Gone again: the other tests of this file see the account with its one recipient.
    await t.db.$client.execute({
      sql: "UPDATE recipients SET deleted_at = 1 WHERE id IN (?, ?)",
      args: [first, second],
    });
  });

  test("says so to someone whose role does not prepare payments, with no form", async () => {
    const res = await viewer.client.get("/account/payment");
    expectStatus(res, 200);
    expect(res.text).toContain("Your role on this account does not allow making payments.");
    expect(res.text).not.toContain('"PaymentForm"');
  });
});

describe("/account/pendingpayments", () => {
  test("lists what waits, offering approval to an approver but not to the payer who prepared it", async () => {
    const forApprover = island(await islandsOn(approver.client, "/account/pendingpayments"), "PendingPayments");
    const [row] = forApprover.props.payments as { id: number; actions: Record<string, unknown> }[];
    expect(row).toMatchObject({ id: waiting.id, actions: { approve: true, reject: true, note: null } });
    const forPayer = island(await islandsOn(payer.client, "/account/pendingpayments"), "PendingPayments");
    expect((forPayer.props.payments as { actions: Record<string, unknown> }[])[0].actions).toMatchObject({
      approve: false,
      note: "You prepared this payment: someone else on the account must approve it.",
    });
  });

  test("a payment's page is its account's only", async () => {
    const page = island(await islandsOn(approver.client, `/account/pendingpayments/${waiting.id}`), "PendingPayment");
    expect(page.props.payment).toMatchObject({
      id: waiting.id,
      created_by: { id: payer.id, name: payer.name },
      events: [{ event: "created" }, { event: "approval_requested" }],
    });
    const stranger = await paymentAccount(t, admin);
    expectStatus(await stranger.owner.client.get(`/account/pendingpayments/${waiting.id}`), 404);
    expectStatus(await approver.client.get("/account/pendingpayments/999999"), 404);
  });

  test("the dashboard lists what waits for approval", async () => {
    const list = island(await islandsOn(approver.client, "/account"), "PendingPayments");
    expect(list.props).toMatchObject({ compact: true, accountRef: account.owner.accountRef });
    expect((list.props.payments as { id: number }[]).map((p) => p.id)).toEqual([waiting.id]);
  });
});

describe("/account/payments", () => {
  test("lists the account's payments, newest first, to everyone on it, a viewer too, from the menu", async () => {
    for (const who of [viewer, approver, account.owner]) {
      const list = island(await islandsOn(who.client, "/account/payments"), "Payments");
      expect(list.props).toMatchObject({ accountRef: account.owner.accountRef, actingFor: null });
      const first = list.props.payments as { items: { id: number; status: string }[]; total: number; page: number };
      expect(first.page).toBe(1);
      expect(first.items[0]).toMatchObject({ id: waiting.id, status: "pending_approval" });
      expect(first.items.map((p) => p.id)).toEqual([...first.items.map((p) => p.id)].sort((a, b) => b - a));
      const res = await who.client.get("/account/payments");
      const nav = /<nav aria-label="Account"[\s\S]*?<\/nav>/.exec(res.text)?.[0] ?? "";
      expect(nav).toContain('href="/account/payments" class="nav-link" aria-current="page"');
    }
  });

  test("is another account's list for another account", async () => {
    const stranger = await paymentAccount(t, admin);
    const list = island(await islandsOn(stranger.owner.client, "/account/payments"), "Payments");
    expect((list.props.payments as { items: unknown[] }).items).toEqual([]);
  });

  test("a payment's page leads back to every payment, and to the pending ones while it waits", async () => {
    const res = await approver.client.get(`/account/pendingpayments/${waiting.id}`);
    expectStatus(res, 200);
    const main = /<main[\s\S]*<\/main>/.exec(res.text)![0];
    expect(main).toContain('href="/account/payments">All payments</a>');
    expect(main).toContain('href="/account/pendingpayments">All pending payments</a>');
  });
});

describe("the dashboard's latest movements", () => {
  /** The rows of the dashboard's "Latest movements" table, as their [what, amount] cells' text. */
  async function movementRows(client: TestClient): Promise<string[][]> {
    const res = await client.get("/account");
    expectStatus(res, 200);
    const table = /id="movements-heading"[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(res.text)![1];
    const text = (html: string) => html.replace(/<[^>]*>/g, "").trim();
    return table.split("</tr>").filter((row) => row.includes("<td")).map((row) =>
      row.split("</td>").slice(1, 3).map(text)
    );
  }

  test("a payment's hold shows once, as money leaving what is available, and its release once, as money back", async () => {
    const recipient = await addRecipient(t, account, { name: "Ann Hale", currency: "GBP", country: "GB" });
    const cancelled = await paid(account.owner.client, {
      recipient_id: recipient,
      amount: "40.00",
      sell_currency: "GBP",
    });
    expectStatus(await account.owner.client.post(`account/payments/${cancelled.id}/cancel`, {}), 200);

    const res = await account.owner.client.get("account/movements");
    expectStatus(res, 200);
    const ofPayment = (id: number) =>
      (res.json.body as { description: string; currency: string; amount: string }[])
        .filter((m) => m.description.startsWith(`Payment ${id}:`)).map((m) => [m.description, m.amount, m.currency]);
    expect(ofPayment(waiting.id)).toEqual([[`Payment ${waiting.id}: money held`, "-25.00", "GBP"]]);
    expect(ofPayment(cancelled.id)).toEqual([
      [`Payment ${cancelled.id}: held money released`, "40.00", "GBP"],
      [`Payment ${cancelled.id}: money held`, "-40.00", "GBP"],
    ]);

    const rows = (await movementRows(viewer.client)).filter(([what]) => what.startsWith("Payment "));
    expect(rows).toEqual([
      [`Payment ${cancelled.id}: held money released`, "+40.00 GBP"],
      [`Payment ${cancelled.id}: money held`, "-40.00 GBP"],
      [`Payment ${waiting.id}: money held`, "-25.00 GBP"],
    ]);
  });
});
