import { afterAll, describe, expect, vi } from "vitest";
import { openDatabase } from "../../db/client.ts";
import { rowOf } from "../../db/sql.ts";
import { recordSignIn } from "../../server/console/administrators.ts";
import { VERSIONS_MAX_AGE_MS } from "../../server/data-versions.ts";
import { businessOwner, memberWithRole } from "../helpers/account-users.ts";
import { testApp } from "../helpers/app.ts";
import { type Customer, expectStatus, registerCustomer, TestClient } from "../helpers/client.ts";
import { databaseFile } from "../helpers/dying-instance.ts";
import { type SigninApp, test } from "../helpers/fixtures.ts";

/**
 * A signed-in page's session and summary are kept in memory between requests (decision 054). What
 * a customer must be able to count on: a session that ended, or a user who changed, is never used
 * for a write, in this process or another on the same database, and a page or a call (a read)
 * shows it on the next request in the process that made the change and within a second in another.
 */

vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

const PAGE = "/account/security";
const closers: (() => void)[] = [];
afterAll(() => closers.forEach((close) => close()));

/** A second portal process on the same database file: its own connection, page cache and session memory. */
async function secondProcess(app: SigninApp) {
  const database = await openDatabase({ url: `file:${await databaseFile(app.db)}` });
  closers.push(() => database.$client.close());
  return (await testApp({ sessions: "database", now: app.clock.now, env: { TRUST_PROXY: "1" }, database })).app;
}

const version = async (app: SigninApp) =>
  (await rowOf<{ version: number }>(app.db, "SELECT version FROM data_versions WHERE topic = 'sessions'"))!.version;

/** The customer's browser after a page render has put their session in the process's memory. */
async function warmed(customer: Customer) {
  expectStatus(await customer.client.get(PAGE), 200);
  return customer.client.clone();
}

describe("in the process that signed the session out", () => {
  test("the next page refuses the old cookie at once", async ({ customer }) => {
    const stolen = await warmed(customer);
    expectStatus(await stolen.get(PAGE), 200);
    expectStatus(await customer.client.post("auth/logout", {}), 200);
    const page = await stolen.get(PAGE);
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toBe("/");
  });

  test("a password change that ends the other sessions refuses them on the next page", async ({ app }) => {
    const customer = await registerCustomer(app);
    // A second browser of the same customer, signed in with the password.
    const other = new TestClient(app);
    expectStatus(await other.post("auth/login", { email: customer.email, password: customer.password }), 200);
    const otherWarm = other.clone();
    // Signing in again (no second factor yet) leaves this browser short of it: the page says where to go.
    expect((await otherWarm.get(PAGE)).status).toBe(302);
    expectStatus(await customer.client.get(PAGE), 200);
    const stale = customer.client.clone();
    const changed = await customer.client.post("account/password", {
      current_password: customer.password,
      password: "a brand new passphrase 7",
    });
    expectStatus(changed, 200);
    expect(changed.json.body.other_sessions_ended).toBe(1);
    // This browser's own session stays.
    expectStatus(await stale.get(PAGE), 200);
    expect((await other.get(PAGE)).headers.get("location")).toBe("/");
  });
});

describe("in another process on the same database", () => {
  test("a signed-out session's writes are refused at once", async ({ app }) => {
    const second = await secondProcess(app);
    const customer = await registerCustomer(app);
    const there = customer.client.to(second);
    // A page and a call each keep the session in the second process's memory.
    expectStatus(await there.get(PAGE), 200);
    expectStatus(await there.get("account/whoami"), 200);
    const stolen = there.clone();

    expectStatus(await customer.client.post("auth/logout", {}), 200);

    // A write reads the sessions version from the database itself: no second of grace.
    expect(
      (await stolen.clone().post("account/password", {
        current_password: customer.password,
        password: "someone else's passphrase 9",
      })).status,
    ).toBe(401);
  });

  test("a signed-out session's calls and pages are refused within a second", async ({ app }) => {
    const second = await secondProcess(app);
    const customer = await registerCustomer(app);
    const there = customer.client.to(second);
    expectStatus(await there.get(PAGE), 200);
    expectStatus(await there.get("account/whoami"), 200);
    const stolen = there.clone();

    expectStatus(await customer.client.post("auth/logout", {}), 200);

    // Once the versions the second process trusts are a second old (and it made no write since).
    app.clock.advance(VERSIONS_MAX_AGE_MS);
    expect((await stolen.clone().get("account/whoami")).status).toBe(401);
    const page = await stolen.get(PAGE);
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toBe("/");
  });

  test("a member whose role was taken back cannot write there at once", async ({ app, admin }) => {
    const second = await secondProcess(app);
    const owner = await businessOwner(app, admin);
    const payer = await memberWithRole(app, owner.client, "payer");
    const there = payer.client.to(second);
    const quote = () =>
      there.post("account/conversions/quote", {
        sell_currency: "EUR",
        buy_currency: "GBP",
        amount: "10.00",
        fixed: "sell",
      });
    // Reads and a write of the payer's keep their session in the second process's memory.
    expectStatus(await there.get("account/balances"), 200);
    expectStatus(await quote(), 200);

    expectStatus(await owner.client.put(`account/users/${payer.id}`, { role: "viewer" }), 200);

    const refused = await quote();
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe("Your role on this account does not allow this.");
  });

  test("a user whose second factor was taken back is sent to it within a second", async ({ app }) => {
    const second = await secondProcess(app);
    const customer = await registerCustomer(app);
    const there = customer.client.to(second);
    expectStatus(await there.get(PAGE), 200);
    // An operator's change straight in the database (another process altogether).
    await app.db.$client.execute({
      sql: "UPDATE sessions SET second_factor = 0 WHERE user_id = ?",
      args: [customer.id],
    });
    app.clock.advance(VERSIONS_MAX_AGE_MS);
    const page = await there.get(PAGE);
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toBe("/second-factor");
  });
});

describe("a change to a user in another process", () => {
  test("a sign-in elsewhere keeps the session in memory; a restriction shows within a second", async ({ app, admin }) => {
    const second = await secondProcess(app);
    const customer = await registerCustomer(app);
    const there = customer.client.to(second);
    const whoami = async () => {
      const res = await there.get("account/whoami");
      expectStatus(res, 200);
      return res.json.body as { restricted: boolean };
    };
    expect((await whoami()).restricted).toBe(false);
    const before = await version(app);

    // A full sign-in of the same customer records its time on their row: no kept session is dropped.
    await recordSignIn(app.db, customer.id, new Date(app.clock.now()));
    expect(await version(app)).toBe(before);

    expectStatus(
      await admin.client.post(`console/users/${customer.id}/restrict`, { reason: "Source of funds under review" }),
      200,
    );
    expect(await version(app)).toBeGreaterThan(before);
    app.clock.advance(VERSIONS_MAX_AGE_MS);
    expect((await whoami()).restricted).toBe(true);
  });
});

describe("the version the kept sessions follow", () => {
  test("moves with every change to a session, a user, a profile, an identity check or a membership, not with a session's use", async ({ app }) => {
    const customer = await registerCustomer(app);
    const before = await version(app);
    await app.db.$client.execute({
      sql: "UPDATE sessions SET last_seen_at = last_seen_at + 1 WHERE user_id = ?",
      args: [customer.id],
    });
    expect(await version(app)).toBe(before);
    await app.db.$client.execute({ sql: "UPDATE users SET validated = validated WHERE id = ?", args: [customer.id] });
    // `validated` is read into the summary (the kept step it changes, db/derived.ts, is not).
    const afterUser = await version(app);
    expect(afterUser).toBeGreaterThan(before);
    const triggers = await app.db.$client.execute(
      "SELECT tbl_name FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%''sessions''%'",
    );
    expect(new Set(triggers.rows.map((row) => row.tbl_name))).toEqual(
      new Set(["sessions", "users", "profiles", "identity_checks", "account_members"]),
    );
    await app.db.$client.execute({ sql: "DELETE FROM sessions WHERE user_id = ?", args: [customer.id] });
    expect(await version(app)).toBeGreaterThan(afterUser);
  });

  /** Sets a column of the customer's row to itself: an UPDATE OF trigger fires whatever the value. */
  const touchColumn = (app: SigninApp, id: number, column: string) =>
    app.db.$client.execute({ sql: `UPDATE users SET ${column} = ${column} WHERE id = ?`, args: [id] });

  test("does not move with what a kept summary does not hold: sign-in time, authenticator step, kept step and balance", async ({ app }) => {
    const customer = await registerCustomer(app);
    const before = await version(app);
    for (
      const column of [
        "last_sign_in_at",
        "totp_last_step",
        "step",
        "has_balance",
        "funded_at",
        "partner_id",
        "referral_code",
        "on_behalf_of",
        "created_at",
      ]
    ) {
      await touchColumn(app, customer.id, column);
      expect(await version(app), column).toBe(before);
    }
  });

  test("moves with each column a kept summary is read from, and with the user's credentials", async ({ app }) => {
    const customer = await registerCustomer(app);
    for (
      const column of [
        "level",
        "restricted",
        "validated",
        "type",
        "username",
        "affiliate",
        "override_transfer_fee",
        "override_priority_transfer_fee",
        "override_regular_transfer_fee",
        "password_hash",
        "totp_secret",
      ]
    ) {
      const before = await version(app);
      await touchColumn(app, customer.id, column);
      expect(await version(app), column).toBeGreaterThan(before);
    }
  });
});
