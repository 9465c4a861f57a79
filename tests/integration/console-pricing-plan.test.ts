import { beforeAll, describe, expect, test, vi } from "vitest";
import { type Admin, expectStatus, TestClient } from "../helpers/client.ts";
import { type MoneyApp, moneyApp, type OpenCustomer, openCustomer } from "../helpers/money.ts";

/**
 * One pricing plan in the console (issue 11 item 9): GET console/pricingplans/{id} and the page
 * /console/pricingplan/{id} show its tiers and fees, the accounts on it (the default plan holds
 * every account without a plan of its own) and its history of changes from the audit log.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let t: MoneyApp;
let admin: Admin;
let moved: OpenCustomer;
let stays: OpenCustomer;
let defaultId: number;
let planId: number;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  moved = await openCustomer(t);
  stays = await openCustomer(t);
  const plans = await admin.client.get("console/pricingplans");
  const standard = plans.json.body.find((p: { is_default: boolean }) => p.is_default);
  defaultId = standard.id;
  const { tier_currency, tiers, fees } = standard;
  const created = await admin.client.post("console/pricingplans", { name: "Treasury", tier_currency, tiers, fees });
  expectStatus(created, 201);
  planId = created.json.body.id;
  const changed = await admin.client.put(`console/pricingplans/${planId}`, {
    name: "Treasury clients",
    tier_currency,
    tiers: [{ up_to: null, bps: 25 }],
    fees,
  });
  expectStatus(changed, 200);
  expectStatus(await admin.client.put(`console/pricingplans/${planId}`, { assign_account_ref: moved.accountRef }), 200);
});

describe("one pricing plan", () => {
  test("shows its tiers, fees, the account put on it, and its creation, change and assignment, newest first", async () => {
    const res = await admin.client.get(`console/pricingplans/${planId}`);
    expectStatus(res, 200);
    const plan = res.json.body;
    expect(plan).toMatchObject({ id: planId, name: "Treasury clients", is_default: false, account_count: 1 });
    expect(plan.tiers).toEqual([{ up_to: null, bps: 25 }]);
    expect(plan.fees.GBP).toEqual({ regular: expect.any(String), priority: expect.any(String) });
    expect(plan.accounts).toEqual([
      expect.objectContaining({
        account_ref: moved.accountRef,
        assigned_by: admin.email,
        assigned_at: expect.any(String),
      }),
    ]);
    expect(plan.history.map((e: { action: string }) => e.action)).toEqual([
      "pricing-plan.assign",
      "pricing-plan.replace",
      "pricing-plan.create",
    ]);
    expect(plan.history[0]).toMatchObject({ account_ref: moved.accountRef, after: { plan_id: planId } });
    expect(plan.history[1].before.name).toBe("Treasury");
    expect(plan.history[1].after.name).toBe("Treasury clients");
  });

  test("the default plan holds every account without a plan of its own, and records an account taken off it", async () => {
    const res = await admin.client.get(`console/pricingplans/${defaultId}`);
    expectStatus(res, 200);
    const refs = res.json.body.accounts.map((a: { account_ref: string }) => a.account_ref);
    expect(refs).toContain(stays.accountRef);
    expect(refs).not.toContain(moved.accountRef);
    expect(res.json.body.accounts.find((a: { account_ref: string }) => a.account_ref === stays.accountRef))
      .toMatchObject({ assigned_at: null, assigned_by: null });
    // Moving the account to the Treasury plan took it off the default plan: that shows in its history too.
    expect(res.json.body.history).toEqual([
      expect.objectContaining({
        action: "pricing-plan.assign",
        account_ref: moved.accountRef,
        before: { plan_id: null },
        after: { plan_id: planId },
      }),
    ]);
    expectStatus(
      await admin.client.put(`console/pricingplans/${defaultId}`, { assign_account_ref: moved.accountRef }),
      200,
    );
    const back = await admin.client.get(`console/pricingplans/${planId}`);
    expect(back.json.body.account_count).toBe(0);
    expect(back.json.body.history[0]).toMatchObject({
      action: "pricing-plan.assign",
      before: { plan_id: planId },
      after: { plan_id: defaultId },
    });
  });

  test("the page shows the plan, its accounts and history; an unknown plan is 'Page not found'", async () => {
    const page = await admin.client.get(`/console/pricingplan/${planId}`);
    expectStatus(page, 200);
    const main = page.text.slice(page.text.indexOf("<main"), page.text.indexOf("</main>"));
    expect(main).toContain("Treasury clients");
    expect(main).toContain("0.25%");
    expect(main).toContain("History of changes");
    expect(main).toContain("Changed a pricing plan");
    expect(main).not.toContain("Coming soon");
    expectStatus(await admin.client.get("/console/pricingplan/99999"), 404);
    expectStatus(await admin.client.get("console/pricingplans/99999"), 404);
  });

  test("the plans list links each plan's name to its page", async () => {
    const page = await admin.client.get("/console/pricingplan");
    expectStatus(page, 200);
    expect(page.text).toContain(`href="/console/pricingplan/${planId}"`);
    expect(page.text).toContain(`href="/console/pricingplan/${defaultId}"`);
  });

  test("customers and visitors get 404", async () => {
    for (const client of [moved.client, new TestClient(t)]) {
      expectStatus(await client.get(`console/pricingplans/${planId}`), 404);
      expectStatus(await client.get(`/console/pricingplan/${planId}`), 404);
    }
  });
});
