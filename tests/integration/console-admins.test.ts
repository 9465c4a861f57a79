import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { auditLog, emails, sessions } from "../../db/schema.ts";
import {
  DISABLED_ADMINISTRATOR,
  LAST_ACTIVE_ADMINISTRATOR,
  NOT_WAITING,
  NOT_YOURSELF,
  OWN_INVITATION,
} from "../../server/console/administrators.ts";
import {
  type Admin,
  anotherAdmin,
  createAdmin,
  emailedCode,
  emailedToken,
  expectStatus,
  HOUR,
  inUtcWords,
  mailTo,
  registerCustomer,
  signIn,
  signinApp,
  TestClient,
  uniqueEmail,
} from "../helpers/client.ts";
import { latestEmail } from "../helpers/mailbox.ts";

/**
 * The console's administrators (issue 11 item 2, decision 044): an invitation by email whose link
 * lets the invitee choose a password, after which they sign in with the second factor like every
 * administrator; disabling one ends their sessions at once and stops their sign-in; the last
 * active administrator stays; nobody disables themselves; customers never see any of it. While
 * another administrator is active, an invitation waits for a second administrator's approval
 * before its link is emailed (four eyes, decision 044 amended).
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

type App = Awaited<ReturnType<typeof signinApp>>;
let t: App;
let admin: Admin;
/** The second administrator, who approves what `admin` asks for. */
let checker: Admin;

beforeAll(async () => {
  t = await signinApp();
  admin = await createAdmin(t);
  checker = await anotherAdmin(t);
});

const PASSWORD = "invited password 789";

/** `admin` invites someone and `checker` approves: the link is emailed. */
async function inviteApproved(email: string, name: string) {
  const invited = await admin.client.post("console/admins", { email, name });
  expectStatus(invited, 201);
  expect(invited.json.body.status).toBe("waiting");
  const approved = await checker.client.post(`console/admins/${invited.json.body.id}/approve`, {});
  expectStatus(approved, 200);
  return approved;
}

/** Invites someone and has them choose their password from the emailed link. */
async function invitedAndAccepted(name = "Ada Invited"): Promise<{ email: string; id: number }> {
  const email = uniqueEmail("invited");
  const invited = await inviteApproved(email, name);
  const { link, token } = await emailedToken(t.db, email, "administrator-invitation");
  expect(new URL(link).pathname).toBe("/forgot");
  const visitor = new TestClient(t);
  expectStatus(await visitor.post("auth/forgot/reset", { username: email, token, password: PASSWORD }), 200);
  return { email, id: invited.json.body.id };
}

const listed = async (id: number) =>
  (await admin.client.get("console/admins")).json.body.find((a: { id: number }) => a.id === id);

describe("inviting an administrator", () => {
  test("the invitee is listed as invited, chooses a password from the link, and signs in with the second factor", async () => {
    const email = uniqueEmail("invited");
    const invited = await inviteApproved(email, "Grace Hopper");
    expect(invited.json.body).toMatchObject({
      email,
      name: "Grace Hopper",
      status: "invited",
      second_factor: "emailed-code",
      last_sign_in_at: null,
      invited_by: admin.email,
    });
    const id = invited.json.body.id as number;

    // Not yet able to sign in: there is no password until the link is used.
    const early = new TestClient(t);
    expectStatus(await early.post("auth/login", { email, password: PASSWORD }), 401);

    const { token } = await emailedToken(t.db, email, "administrator-invitation");
    const browser = new TestClient(t);
    expectStatus(await browser.post("auth/forgot/reset", { username: email, token, password: PASSWORD }), 200);
    // Single use: the same link does not set a password twice.
    const again = await browser.post("auth/forgot/reset", { username: email, token, password: "another one 123" });
    expectStatus(again, 422);

    // The password alone is not a console session: the second factor is still asked.
    expectStatus(await browser.post("auth/login", { email, password: PASSWORD }), 200);
    const halfway = await browser.get("console/admins");
    expectStatus(halfway, 403);
    expect(halfway.json.redirect).toBe("/second-factor");
    expectStatus(await browser.post("challenge", { token: await emailedCode(t.db, email) }), 200);
    expectStatus(await browser.get("console/admins"), 200);

    const row = await listed(id);
    expect(row.status).toBe("active");
    expect(row.last_sign_in_at).toBe(new Date(t.clock.now()).toISOString());
  });

  test("the email says until when the link works, the time zone named UTC as our other times, never GMT", async () => {
    const email = uniqueEmail("invited");
    const sent = t.clock.now();
    await inviteApproved(email, "Punctual Reader");
    const text = (await mailTo(t.db, email)).text.replace(/\s+/g, " ");
    expect(text).toContain(`The link works once, until ${inUtcWords(new Date(sent + 72 * HOUR))}.`);
    expect(text).not.toContain("GMT");
  });

  test("the link expires after 72 hours; inviting again sends a new one, approved already", async () => {
    const email = uniqueEmail("invited");
    await inviteApproved(email, "Late Reader");
    const { token } = await emailedToken(t.db, email, "administrator-invitation");
    t.clock.advance(73 * HOUR);
    const visitor = new TestClient(t);
    expectStatus(await visitor.post("auth/forgot/reset", { username: email, token, password: PASSWORD }), 422);
    // The first administrator signs in again after the long wait.
    admin.client = new TestClient(t);
    await signIn(admin.client, admin.email, admin.password);
    checker.client = new TestClient(t);
    await signIn(checker.client, checker.email, checker.password);

    // Approved once: the new link goes at once, nobody approves it again.
    const again = await admin.client.post("console/admins", { email, name: "Late Reader" });
    expectStatus(again, 201);
    expect(again.json.body.status).toBe("invited");
    const fresh = await emailedToken(t.db, email, "administrator-invitation");
    expect(fresh.token).not.toBe(token);
    expectStatus(
      await visitor.post("auth/forgot/reset", { username: email, token: fresh.token, password: PASSWORD }),
      200,
    );
  });

  test("a customer's email, an administrator's and a bad address are refused, and nothing is created", async () => {
    const customer = await registerCustomer(t);
    const before = (await admin.client.get("console/admins")).json.body.length;

    const taken = await admin.client.post("console/admins", { email: customer.email, name: "Not Me" });
    expectStatus(taken, 409);
    const already = await admin.client.post("console/admins", { email: admin.email, name: "Me Again" });
    expectStatus(already, 409);
    expect(already.json.error).toBe("This person is already an administrator.");

    const bad = await admin.client.post("console/admins", { email: "not an address", name: "X" });
    expectStatus(bad, 422);
    expect(Object.keys(bad.json.fields)).toEqual(["email"]);
    const nameless = await admin.client.post("console/admins", { email: uniqueEmail(), name: "" });
    expectStatus(nameless, 422);
    expect(Object.keys(nameless.json.fields)).toEqual(["name"]);

    expect((await admin.client.get("console/admins")).json.body.length).toBe(before);
  });
});

describe("the invitation's link once a password is chosen", () => {
  test("chosen with a reset link instead, the invitation's link no longer sets the password", async () => {
    const email = uniqueEmail("reset-first");
    await inviteApproved(email, "Resets First");
    const { token: invitation } = await emailedToken(t.db, email, "administrator-invitation");
    // The invitee asks for a reset link (the invitation email lost in a folder) and chooses a password.
    expectStatus(await new TestClient(t).post("auth/forgot", { username: email }), 200);
    const { token: reset } = await emailedToken(t.db, email, "password-reset");
    expectStatus(
      await new TestClient(t).post("auth/forgot/reset", { username: email, token: reset, password: PASSWORD }),
      200,
    );

    // Whoever finds the invitation email later cannot choose another password with it.
    const again = await new TestClient(t).post("auth/forgot/reset", {
      username: email,
      token: invitation,
      password: "someone else's password",
    });
    expectStatus(again, 422);
    expectStatus(await new TestClient(t).post("auth/login", { email, password: PASSWORD }), 200);
  });
});

describe("disabling an administrator", () => {
  test("ends their sessions at once and their sign-in from then on", async () => {
    const { email, id } = await invitedAndAccepted();
    const theirs = new TestClient(t);
    await signIn(theirs, email, PASSWORD);
    expectStatus(await theirs.get("console/admins"), 200);

    const disabled = await admin.client.delete(`console/admins/${id}`);
    expectStatus(disabled, 200);
    expect(disabled.json.body.status).toBe("disabled");
    expect(await t.db.select().from(sessions).where(eq(sessions.userId, id))).toEqual([]);
    // The very next request of their browser is a visitor's.
    expectStatus(await theirs.get("console/admins"), 404);

    // The right password no longer signs them in.
    const retry = new TestClient(t);
    expectStatus(await retry.post("auth/login", { email, password: PASSWORD }), 401);

    const entries = await t.db.select().from(auditLog).where(
      and(eq(auditLog.action, "admin.disable"), eq(auditLog.subjectId, id)),
    );
    expect(entries).toMatchObject([{ actorId: admin.id, after: { status: "disabled" } }]);
    expect((await listed(id)).disabled_at).not.toBeNull();
  });

  test("disabling someone invited withdraws their link", async () => {
    const email = uniqueEmail("invited");
    const invited = await inviteApproved(email, "Never Came");
    const { token } = await emailedToken(t.db, email, "administrator-invitation");
    expectStatus(await admin.client.delete(`console/admins/${invited.json.body.id}`), 200);
    const visitor = new TestClient(t);
    expectStatus(await visitor.post("auth/forgot/reset", { username: email, token, password: PASSWORD }), 422);
  });

  test("guessing a disabled administrator's password until sign-in pauses emails them no link to choose a new one", async () => {
    const { email, id } = await invitedAndAccepted("Has Left");
    expectStatus(await admin.client.delete(`console/admins/${id}`), 200);

    // 50 wrong passwords from 10 addresses: enough to pause an account that can sign in.
    for (let source = 0; source < 10; source++) {
      const guesser = new TestClient(t, { address: `203.0.113.${source + 1}` });
      for (let i = 0; i < 5; i++) {
        expectStatus(await guesser.post("auth/login", { email, password: `guess ${source}-${i}` }), 401);
      }
    }
    const paused = await new TestClient(t, { address: "203.0.113.99" }).post("auth/login", { email, password: "x" });
    expectStatus(paused, 429);
    // Nobody who has left is told to use a link that would only choose a password for nothing.
    const notices = await t.db.select().from(emails).where(
      and(eq(emails.to, email), eq(emails.template, "sign-in-paused")),
    );
    expect(notices).toEqual([]);
  });

  test("nobody disables themselves; the last active administrator cannot be disabled", async () => {
    const own = await admin.client.delete(`console/admins/${admin.id}`);
    expectStatus(own, 409);
    expect(own.json.error).toBe(NOT_YOURSELF);

    // A portal of its own with one administrator.
    const lone = await signinApp();
    const only = await createAdmin(lone);
    const last = await only.client.delete(`console/admins/${only.id}`);
    expectStatus(last, 409);
    expect(last.json.error).toBe(LAST_ACTIVE_ADMINISTRATOR);
    expectStatus(await only.client.get("console/admins"), 200);
  });

  test("an unknown id, or a customer's, is not an administrator", async () => {
    const customer = await registerCustomer(t);
    expectStatus(await admin.client.delete(`console/admins/${customer.id}`), 404);
    expectStatus(await admin.client.delete("console/admins/999999"), 404);
  });
});

describe("four eyes on a new administrator", () => {
  const auditOf = async (id: number) =>
    await t.db.select().from(auditLog).where(eq(auditLog.subjectId, id)).orderBy(auditLog.id);

  test("while another administrator is active, the inviter alone cannot get a second administrator in", async () => {
    const email = uniqueEmail("myself");
    const invited = await admin.client.post("console/admins", { email, name: "My Other Mailbox" });
    expectStatus(invited, 201);
    expect(invited.json.body).toMatchObject({ status: "waiting", invited_by: admin.email });
    const id = invited.json.body.id as number;
    expect((await listed(id)).status).toBe("waiting");

    // No link was emailed, and a forgotten-password request gives none either.
    expect(await latestEmail(t.db, email)).toBeUndefined();
    expectStatus(await new TestClient(t).post("auth/forgot", { username: email }), 200);
    expect(await latestEmail(t.db, email)).toBeUndefined();

    // The inviter cannot decide their own request, and hears why.
    const own = await admin.client.post(`console/admins/${id}/approve`, {});
    expectStatus(own, 409);
    expect(own.json.error).toBe(OWN_INVITATION);
    const ownRefusal = await admin.client.post(`console/admins/${id}/refuse`, { reason: "Changed my mind" });
    expectStatus(ownRefusal, 409);
    expect(ownRefusal.json.error).toBe(OWN_INVITATION);

    // Asking again changes nothing: it still waits, still without a link.
    const again = await admin.client.post("console/admins", { email, name: "Another Name" });
    expectStatus(again, 201);
    expect(again.json.body).toMatchObject({ status: "waiting", name: "My Other Mailbox" });
    expect(await latestEmail(t.db, email)).toBeUndefined();

    expect(await auditOf(id)).toMatchObject([
      { action: "admin.invite", actorId: admin.id, before: null, after: { email, status: "waiting" } },
    ]);
  });

  test("pausing a waiting invitee's sign-in with wrong passwords emails them no link to choose a password", async () => {
    const email = uniqueEmail("paused");
    const invited = await admin.client.post("console/admins", { email, name: "My Paused Mailbox" });
    expect(invited.json.body.status).toBe("waiting");
    // 50 wrong passwords from ten addresses pause the sign-in of the address (decision 023): the
    // pause's notice, which carries a password link to its owner, must not reach a waiting invitee.
    for (let source = 0; source < 10; source++) {
      const guesser = new TestClient(t, { address: `198.51.100.${source + 1}` });
      for (let i = 0; i < 5; i++) {
        expectStatus(await guesser.post("auth/login", { email, password: `guess ${source}-${i}` }), 401);
      }
      t.clock.advance(60_000);
    }
    expect(await latestEmail(t.db, email)).toBeUndefined();
    expect((await listed(invited.json.body.id)).status).toBe("waiting");
  });

  test("a second administrator approves, and the link is emailed then", async () => {
    const email = uniqueEmail("approved");
    const invited = await admin.client.post("console/admins", { email, name: "Mary Jackson" });
    const id = invited.json.body.id as number;
    const approved = await checker.client.post(`console/admins/${id}/approve`, {});
    expectStatus(approved, 200);
    expect(approved.json.body).toMatchObject({ status: "invited", invited_by: admin.email });

    const { token } = await emailedToken(t.db, email, "administrator-invitation");
    expect((await mailTo(t.db, email)).text).toContain(admin.email);
    const invitee = new TestClient(t);
    expectStatus(await invitee.post("auth/forgot/reset", { username: email, token, password: PASSWORD }), 200);
    expect((await listed(id)).status).toBe("active");

    const twice = await checker.client.post(`console/admins/${id}/approve`, {});
    expectStatus(twice, 409);
    expect(twice.json.error).toBe(NOT_WAITING);
    expect((await auditOf(id)).map((e) => [e.action, e.actorId])).toEqual([
      ["admin.invite", admin.id],
      ["admin.approve", checker.id],
    ]);
  });

  test("a second administrator refuses with a reason: no link, and the address is not invited again", async () => {
    const email = uniqueEmail("refused");
    const id = (await admin.client.post("console/admins", { email, name: "Not Needed" })).json.body.id as number;

    const reasonless = await checker.client.post(`console/admins/${id}/refuse`, { reason: "" });
    expectStatus(reasonless, 422);
    expect(Object.keys(reasonless.json.fields)).toEqual(["reason"]);
    expect((await listed(id)).status).toBe("waiting");

    const refused = await checker.client.post(`console/admins/${id}/refuse`, {
      reason: "We hired nobody by that name",
    });
    expectStatus(refused, 200);
    expect(refused.json.body.status).toBe("disabled");
    expect(await latestEmail(t.db, email)).toBeUndefined();
    expectStatus(await checker.client.post(`console/admins/${id}/approve`, {}), 409);
    const again = await admin.client.post("console/admins", { email, name: "Not Needed" });
    expectStatus(again, 409);
    expect(again.json.error).toBe(DISABLED_ADMINISTRATOR);
    // Nor does a forgotten-password request email the refused invitee a link to nothing.
    expectStatus(await new TestClient(t).post("auth/forgot", { username: email }), 200);
    expect(await latestEmail(t.db, email)).toBeUndefined();

    expect((await auditOf(id)).at(-1)).toMatchObject({
      action: "admin.refuse",
      actorId: checker.id,
      before: { status: "waiting" },
      after: { status: "disabled", reason: "We hired nobody by that name" },
    });
  });

  test("an approval and a refusal at the same moment: one decides, and a refused invitee is emailed no link", async () => {
    const third = await anotherAdmin(t);
    const email = uniqueEmail("contested");
    const id = (await admin.client.post("console/admins", { email, name: "Contested" })).json.body.id as number;
    const [approved, refused] = await Promise.all([
      checker.client.post(`console/admins/${id}/approve`, {}),
      third.client.post(`console/admins/${id}/refuse`, { reason: "Nobody by that name works here" }),
    ]);
    expect([approved.status, refused.status].sort()).toEqual([200, 409]);
    const decided = await listed(id);
    if (refused.status === 200) {
      expect(decided.status).toBe("disabled");
      expect(await latestEmail(t.db, email)).toBeUndefined();
    } else {
      expect(decided.status).toBe("invited");
      expect(refused.json.error).toBe(NOT_WAITING);
    }
  });

  test("the inviter withdraws a waiting invitation; nobody can approve it then", async () => {
    const email = uniqueEmail("withdrawn");
    const id = (await admin.client.post("console/admins", { email, name: "Asked Too Soon" })).json.body.id as number;
    const withdrawn = await admin.client.delete(`console/admins/${id}`);
    expectStatus(withdrawn, 200);
    expect(withdrawn.json.body.status).toBe("disabled");
    const late = await checker.client.post(`console/admins/${id}/approve`, {});
    expectStatus(late, 409);
    expect(late.json.error).toBe(NOT_WAITING);
    expect(await latestEmail(t.db, email)).toBeUndefined();
    expect((await auditOf(id)).at(-1)).toMatchObject({
      action: "admin.withdraw",
      actorId: admin.id,
      before: { status: "waiting" },
      after: { status: "disabled" },
    });
  });

  test("the only active administrator invites at once, and the log says nobody else checked it", async () => {
    const lone = await signinApp();
    const only = await createAdmin(lone);
    const email = uniqueEmail("second");
    const invited = await only.client.post("console/admins", { email, name: "The Second One" });
    expectStatus(invited, 201);
    expect(invited.json.body.status).toBe("invited");
    await emailedToken(lone.db, email, "administrator-invitation");
    const [entry] = await lone.db.select().from(auditLog).where(eq(auditLog.subjectId, invited.json.body.id));
    expect(entry).toMatchObject({
      action: "admin.invite",
      after: {
        status: "invited",
        second_administrator: "none: the inviter was the portal's only administrator so far",
      },
    });
  });

  test("an administrator left alone by disabling the only other one still cannot invite alone", async () => {
    const app = await signinApp();
    const first = await createAdmin(app);
    const colleague = await anotherAdmin(app);
    expectStatus(await first.client.delete(`console/admins/${colleague.id}`), 200);

    const email = uniqueEmail("alone-again");
    const invited = await first.client.post("console/admins", { email, name: "My Other Mailbox" });
    expectStatus(invited, 201);
    // It waits for an administrator who can approve it; nobody is emailed a way in meanwhile.
    expect(invited.json.body.status).toBe("waiting");
    expect(await latestEmail(app.db, email)).toBeUndefined();
    expectStatus(await new TestClient(app).post("auth/forgot", { username: email }), 200);
    expect(await latestEmail(app.db, email)).toBeUndefined();
  });
});

describe("only administrators see any of it", () => {
  let other: Admin;
  beforeAll(async () => {
    other = await anotherAdmin(t);
  });

  test("customers and visitors get 404 for every call", async () => {
    const customer = await registerCustomer(t);
    const visitor = new TestClient(t);
    for (const client of [customer.client, visitor]) {
      expectStatus(await client.get("console/admins"), 404);
      expectStatus(await client.post("console/admins", { email: uniqueEmail(), name: "Sneaky" }), 404);
      expectStatus(await client.delete(`console/admins/${other.id}`), 404);
    }
    expect((await listed(other.id)).status).toBe("active");
  });
});
