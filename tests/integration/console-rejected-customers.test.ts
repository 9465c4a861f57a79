import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { DERIVED_CHECK } from "../../db/derived.ts";
import { type Admin, createAdmin, type Customer, expectStatus, signinApp } from "../helpers/client.ts";
import { customerWithoutAccount } from "../helpers/money.ts";

/**
 * The console's customers list and a rejected application (exploratory check of the operations
 * console): a rejected application is not one waiting for the review. The list says it was
 * rejected, when and why; "Waiting for the review" leaves it out and "Application rejected" finds
 * it; and its row offers the review that overrides the rejection, as the customer's page does,
 * not a form the server can only refuse.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

type App = Awaited<ReturnType<typeof signinApp>>;
let t: App;
let admin: Admin;
let waiting: Customer;
let rejected: Customer;

interface Row {
  id: number;
  step: string;
  rejection: { at: string; reason: string } | null;
}

async function listed(query: string): Promise<Row[]> {
  const res = await admin.client.get(`console/users?${query}`);
  expectStatus(res, 200);
  return res.json.body.items as Row[];
}

beforeAll(async () => {
  t = await signinApp();
  admin = await createAdmin(t);
  waiting = await customerWithoutAccount(t);
  rejected = await customerWithoutAccount(t);
  expectStatus(
    await admin.client.post(`console/users/${rejected.id}/reject`, {
      reason: "not_verified",
      note: "Registry shows another director",
    }),
    200,
  );
});

describe("a rejected application in the console's customers list", () => {
  test("is at the step 'rejected' with its date and reason, not waiting for the review", async () => {
    const review = await listed("step=review");
    expect(review.map((r) => r.id)).toContain(waiting.id);
    expect(review.map((r) => r.id)).not.toContain(rejected.id);
    const found = await listed("step=rejected");
    expect(found.map((r) => r.id)).toEqual([rejected.id]);
    expect(found[0]).toMatchObject({
      step: "rejected",
      rejection: { at: expect.stringMatching(`^${t.clock.today()}`), reason: "not_verified" },
    });
    expect((await listed("")).find((r) => r.id === waiting.id)?.rejection).toBeNull();
    // The kept step is the one the tables say (decision 052).
    const drift = (await t.db.all<{ id: number; kept_step: string; step: string }>(sql.raw(DERIVED_CHECK)))
      .filter((r) => r.kept_step !== r.step);
    expect(drift).toEqual([]);
  });

  test("its row says it was rejected and offers the review that overrides the rejection", async () => {
    const page = await admin.client.get("/console/users");
    expect(page.status).toBe(200);
    const html = page.text.replaceAll("<!-- -->", "");
    const row = html.slice(html.indexOf(rejected.email), html.indexOf(waiting.email));
    expect(row).toContain(`Rejected on ${t.clock.today()} (Could not be verified)`);
    expect(row).toContain("Open account (overrides the rejection)");
    expect(row).not.toContain("Account open");
    expect(html).toContain("Application rejected");
  });

  test("the review that overrides it opens the account, and the list follows", async () => {
    const res = await admin.client.post(`console/users/${rejected.id}/open-account`, {
      compliance: { done: true, amount: "50000", date: t.clock.today() },
      overrides_rejection: true,
    });
    expectStatus(res, 200);
    expect(await listed("step=rejected")).toEqual([]);
    const open = (await listed("step=open")).find((r) => r.id === rejected.id);
    expect(open).toMatchObject({ step: "open", rejection: null });
  });
});
