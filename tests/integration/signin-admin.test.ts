import { and, eq } from "drizzle-orm";
import { describe, expect, vi } from "vitest";
import { auditLog, profiles, users } from "../../db/schema.ts";
import {
  type Customer,
  emailedCode,
  expectStatus,
  personalProfile,
  registerCustomer,
  signIn,
  TestClient,
  uniqueEmail,
} from "../helpers/client.ts";
import { type SigninApp, test } from "../helpers/fixtures.ts";

/**
 * The first administrator (POST setup), what administrators are, the console's calls being
 * invisible to everybody else, and acting on behalf of a customer (account/onbehalf) with the
 * audit log.
 */

// Argon2 hashing makes every registration and login take a while on a busy machine.
vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

async function adminCount(app: SigninApp) {
  return (await app.db.select({ id: users.id }).from(users).where(eq(users.level, "Admin"))).length;
}

describe("setting up the portal", () => {
  test("POST setup creates an administrator while there is none; after that it is 403 'Setup is already done.'", async ({ startApp }) => {
    const app = await startApp();
    const visitor = new TestClient(app);
    expect((await visitor.get("/setup")).status).toBe(200);

    const email = uniqueEmail("First.Admin");
    const res = await visitor.post("setup", { email, password: "admin password 1" });
    expectStatus(res, 200);
    expect(res.json).toEqual({ body: { ok: true }, redirect: "/" });
    const [row] = await app.db.select().from(users).where(eq(users.username, email.toLowerCase()));
    expect(row).toMatchObject({ level: "Admin", validated: true, restricted: false });

    const again = await new TestClient(app).post("setup", {
      email: uniqueEmail("second"),
      password: "admin password 2",
    });
    expectStatus(again, 403);
    expect(again.json.error).toBe("Setup is already done.");
    expect(await adminCount(app)).toBe(1);

    // The setup page says so too.
    expect((await new TestClient(app).get("/setup")).status).toBe(403);
  });

  test("a password outside 8 to 128 characters is refused and creates nobody", async ({ startApp }) => {
    const app = await startApp();
    const res = await new TestClient(app).post("setup", { email: uniqueEmail("admin"), password: "short" });
    expectStatus(res, 422);
    expect(res.json.fields.password).toBeTruthy();
    expect(await adminCount(app)).toBe(0);
  });

  test("two setups at the same moment create exactly one administrator", async ({ startApp }) => {
    const app = await startApp();
    const answers = await Promise.all(
      ["a", "b"].map((who) =>
        new TestClient(app).post("setup", { email: uniqueEmail(`race-${who}`), password: "admin password 1" })
      ),
    );
    expect(answers.map((a) => a.status).sort(), answers.map((a) => a.text).join("\n")).toEqual([200, 403]);
    expect(await adminCount(app)).toBe(1);
  });
});

describe("administrators", () => {
  test("sign in with the emailed code like everyone", async ({ app, admin }) => {
    const client = new TestClient(app);
    const login = await client.post("auth/login", { email: admin.email, password: admin.password });
    expectStatus(login, 200);
    expect(login.json.body.secondFactor).toBe(false);
    // The console needs the second factor.
    const early = await client.get("console/users");
    expectStatus(early, 403);
    expect(early.json.redirect).toBe("/second-factor");
    expectStatus(await client.post("challenge", { token: await emailedCode(app.db, admin.email) }), 200);
    expectStatus(await client.get("console/users"), 200);
  });

  test("are validated and never restricted, whatever their record says", async ({ app, admin }) => {
    await app.db.update(users).set({ validated: false, restricted: true }).where(eq(users.id, admin.id));
    try {
      const res = await admin.client.get("account/whoami");
      expectStatus(res, 200);
      expect(res.json.body).toMatchObject({ id: admin.id, level: "Admin", validated: true, restricted: false });
      expect((await admin.client.get("/auth")).headers.get("location")).toBe("/console/users");
    } finally {
      await app.db.update(users).set({ validated: true, restricted: false }).where(eq(users.id, admin.id));
    }
  });

  test("the console lists customers for an administrator", async ({ admin, customer }) => {
    const res = await admin.client.get(`console/users?q=${encodeURIComponent(customer.email)}`);
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({ page: 1, total: 1 });
    expect(res.json.body.items[0]).toMatchObject({ id: customer.id, username: customer.email, validated: true });
  });

  const ADMIN_CALLS: [string, string, unknown?][] = [
    ["GET", "console/users"],
    ["GET", "console/audit"],
    ["POST", "console/users/1/open-account", { compliance: { done: false } }],
    ["GET", "account/onbehalf"],
    ["POST", "account/onbehalf", { on_behalf_of: 1 }],
    ["DELETE", "account/onbehalf"],
  ];

  test.for(ADMIN_CALLS)("%s %s is 404 for a visitor", async ([method, path, body], { app }) => {
    const res = await new TestClient(app).request(method, path, body);
    expectStatus(res, 404);
  });

  test.for(ADMIN_CALLS)("%s %s is 404 for a signed-in customer", async ([method, path, body], { customer }) => {
    const res = await customer.client.request(method, path, body);
    expectStatus(res, 404);
  });
});

describe("acting on behalf of a customer", () => {
  // One customer through the whole story: the mode started in one test is ended in a later one.
  let customer: Customer;
  let otherAdminId: number;

  async function audit(app: SigninApp) {
    return await app.db.select().from(auditLog).orderBy(auditLog.id);
  }

  test.beforeAll(async ({ app }) => {
    customer = await registerCustomer(app);
    const { createAdministrator } = await import("../../server/auth/setup.ts");
    otherAdminId = await createAdministrator(app.db, uniqueEmail("admin2"), "admin password 2") as number;
  });

  test("a customer calling account/onbehalf is answered 404", async () => {
    expectStatus(await customer.client.get("account/onbehalf"), 404);
    expectStatus(await customer.client.post("account/onbehalf", { on_behalf_of: customer.id }), 404);
    expectStatus(await customer.client.delete("account/onbehalf"), 404);
  });

  test("an administrator, or an unknown id, cannot be the customer: 404 and no mode", async ({ app, admin }) => {
    for (const target of [admin.id, otherAdminId, 999_999]) {
      const res = await admin.client.post("account/onbehalf", { on_behalf_of: target });
      expectStatus(res, 404);
    }
    expectStatus(await admin.client.get("account/onbehalf"), 404);
    const [row] = await app.db.select({ onBehalfOf: users.onBehalfOf }).from(users).where(eq(users.id, admin.id));
    expect(row.onBehalfOf).toBeNull();
  });

  test("POST answers the customer with cc_contact = their email; GET answers the same; the audit log has the start", async ({ app, admin }) => {
    const res = await admin.client.post("account/onbehalf", { on_behalf_of: customer.id });
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({
      id: customer.id,
      username: customer.email,
      level: "User",
      cc_contact: customer.email,
    });
    const get = await admin.client.get("account/onbehalf");
    expectStatus(get, 200);
    expect(get.json.body).toEqual(res.json.body);

    const entries = await audit(app);
    expect(entries.at(-1)).toMatchObject({ actorId: admin.id, subjectId: customer.id, action: "on-behalf.start" });
  });

  test("the mode survives a new login of the administrator", async ({ app, admin }) => {
    const before = (await audit(app)).length;
    expectStatus(await admin.client.post("auth/logout"), 200);
    // Signing out is the administrator's own, not a call made on the customer's behalf.
    expect((await audit(app)).slice(before).filter((e) => e.action === "on-behalf.call")).toEqual([]);
    expectStatus(await admin.client.get("account/onbehalf"), 404); // signed out: nothing to see
    await signIn(admin.client, admin.email, admin.password);
    const res = await admin.client.get("account/onbehalf");
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({ id: customer.id, cc_contact: customer.email });
  });

  test("a change made on behalf is in the audit log with both identities (account/totp/setup)", async ({ app, admin }) => {
    const before = (await audit(app)).length;
    expectStatus(await admin.client.post("account/totp/setup", { password: admin.password }), 200);
    const added = (await audit(app)).slice(before);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({
      actorId: admin.id,
      subjectId: customer.id,
      action: "on-behalf.call",
      after: { method: "POST", path: "/api/account/totp/setup", status: 200 },
    });
  });

  test("the administrator saves the customer's profile on their behalf; the audit log has it", async ({ app, admin }) => {
    const before = (await audit(app)).length;
    const res = await admin.client.post("account/profile", personalProfile());
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({ id: customer.id, profile: true });
    const [row] = await app.db.select().from(profiles).where(eq(profiles.userId, customer.id));
    expect(row).toBeDefined();
    expect((await customer.client.get("account/whoami")).json.body.profile).toBe(true);
    // The administrator has no profile of their own.
    expect(await app.db.select().from(profiles).where(eq(profiles.userId, admin.id))).toHaveLength(0);

    const added = (await audit(app)).slice(before);
    expect(added).toEqual([
      expect.objectContaining({
        actorId: admin.id,
        subjectId: customer.id,
        action: "on-behalf.call",
        after: { method: "POST", path: "/api/account/profile", status: 200 },
      }),
    ]);
  });

  test("reading on behalf adds nothing to the audit log", async ({ app, admin }) => {
    const before = (await audit(app)).length;
    expectStatus(await admin.client.get("account/onbehalf"), 200);
    expectStatus(await admin.client.get("account/whoami"), 200);
    expect(await audit(app)).toHaveLength(before);
  });

  test("DELETE ends the mode (GET is 404 again) and the audit log has the end", async ({ app, admin }) => {
    const res = await admin.client.delete("account/onbehalf");
    expectStatus(res, 200);
    expect(res.json.body).toEqual({ ok: true });
    expectStatus(await admin.client.get("account/onbehalf"), 404);
    const entries = await audit(app);
    expect(entries.at(-1)).toMatchObject({ actorId: admin.id, subjectId: customer.id, action: "on-behalf.end" });

    // Changes after that are the administrator's own, not recorded as on behalf.
    const before = entries.length;
    expectStatus(await admin.client.post("account/totp/setup", { password: admin.password }), 200);
    const calls = await app.db.select().from(auditLog).where(
      and(eq(auditLog.actorId, admin.id), eq(auditLog.action, "on-behalf.call")),
    );
    // Only the setup made on behalf, earlier.
    expect(calls.filter((e) => (e.after as { path: string }).path === "/api/account/totp/setup")).toHaveLength(1);
    expect(await audit(app)).toHaveLength(before);
  });
});
