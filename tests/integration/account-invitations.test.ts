import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, test } from "vitest";
import { accountInvitations } from "../../db/schema-payments.ts";
import { accountMembers, auditLog, users } from "../../db/schema.ts";
import {
  authGoesTo,
  businessOwner,
  invitationToken,
  invite,
  joinAsNewPerson,
  memberWithRole,
} from "../helpers/account-users.ts";
import {
  type Admin,
  completeOnboarding,
  emailedCode,
  expectStatus,
  HOUR,
  inUtcWords,
  mailTo,
  PASSWORD,
  signIn,
  TestClient,
  uniqueEmail,
} from "../helpers/client.ts";
import { customerWithoutAccount, type MoneyApp, moneyApp, type OpenCustomer, openCustomer } from "../helpers/money.ts";

let t: MoneyApp;
let admin: Admin;
let owner: OpenCustomer;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  owner = await businessOwner(t, admin);
});

async function membershipsOf(userId: number) {
  return await t.db.select().from(accountMembers).where(eq(accountMembers.userId, userId));
}

describe("an invitation", () => {
  test("emails a link to PUBLIC_URL/invite with a random token of which only the SHA-256 is kept", async () => {
    const email = uniqueEmail("payer");
    const res = await invite(owner.client, email, "payer");
    expectStatus(res, 201);
    expect(res.json.body).toMatchObject({ email, role: "payer" });
    const mail = await mailTo(t.db, email);
    expect(mail.template).toBe("account-invitation");
    expect(mail.subject).toContain("Acme Trading Ltd");
    const token = await invitationToken(t, email);
    expect(token.length).toBeGreaterThanOrEqual(40);
    const [row] = await t.db.select().from(accountInvitations).where(eq(accountInvitations.id, res.json.body.id));
    expect(row.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(token);
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBe(7 * 24 * HOUR);
  });

  test("says until when it works in the email and on its page, the time zone named UTC as our other times, never GMT", async () => {
    const email = uniqueEmail("expiry");
    const res = await invite(owner.client, email, "viewer");
    expectStatus(res, 201);
    const [row] = await t.db.select().from(accountInvitations).where(eq(accountInvitations.id, res.json.body.id));
    const until = inUtcWords(row.expiresAt);
    const mail = await mailTo(t.db, email);
    const text = mail.text.replace(/\s+/g, " ");
    expect(text).toContain(`The link works once, until ${until}.`);
    expect(text).not.toContain("GMT");
    const token = await invitationToken(t, email);
    const page = await new TestClient(t).get(`/invite?token=${encodeURIComponent(token)}`);
    expectStatus(page, 200);
    expect(page.text).toContain(`Until ${until}`);
    expect(page.text).not.toContain("GMT");
    // The account users page's list of invitations says it the same way, not "2026-12-05".
    const users = await owner.client.get("/account/users");
    expectStatus(users, 200);
    const listed = users.text.slice(users.text.indexOf(email));
    expect(listed).toContain(`the link works until ${until}`);
    expect(listed.slice(0, 2000)).not.toContain(row.expiresAt.toISOString().slice(0, 10));
  });

  test("is for a business account: a personal account's owner is told so and nothing is sent", async () => {
    const personal = await openCustomer(t);
    const email = uniqueEmail("friend");
    const res = await invite(personal.client, email, "viewer");
    expectStatus(res, 403);
    expect(res.json.error).toContain("personal account");
    expect(await mailTo(t.db, email).catch(() => null)).toBeNull();
  });

  test("names the field when the email or the role is wrong, and changes nothing", async () => {
    const bad = await owner.client.post("account/users", { email: "not an email", role: "boss" });
    expectStatus(bad, 422);
    expect(Object.keys(bad.json.fields).sort()).toEqual(["email", "role"]);
  });

  test("to someone already on the account is refused", async () => {
    const res = await invite(owner.client, owner.email, "viewer");
    expectStatus(res, 422);
    expect(res.json.fields.email).toContain("already a user");
  });
});

describe("a new person registering through the invitation", () => {
  let email: string;
  let token: string;

  beforeAll(async () => {
    email = uniqueEmail("newcomer");
    expectStatus(await invite(owner.client, email, "payer"), 201);
    token = await invitationToken(t, email);
  });

  test("gets a login whose email counts as validated, then a second factor, a profile and an identity check before acting", async () => {
    const client = new TestClient(t);
    const registered = await client.post("invitations/register", { token, password: PASSWORD });
    expectStatus(registered, 200);
    expect(registered.json.redirect).toBe("/second-factor");
    const me = await client.get("account/whoami");
    expect(me.json.body).toMatchObject({ username: email, validated: true, secondFactor: false, type: "Personal" });
    expect(await authGoesTo(client)).toBe("/second-factor");
    // Not yet: the account's calls wait for every step.
    expectStatus(await client.get("account/balances"), 403);

    expectStatus(await client.post("challenge", { token: await emailedCode(t.db, email) }), 200);
    expect(await authGoesTo(client)).toBe("/register-personal");
    expectStatus(await client.get("account/balances"), 403);
    const confirmed = await completeOnboarding({ client, type: "Personal" });
    // The account they joined is their only one: no personal account was opened for them.
    expect(confirmed.json.body.account).toBe(true);
    const memberships = await membershipsOf(registered.json.body.id);
    expect(memberships.map((m) => m.role)).toEqual(["payer"]);
    expect(await authGoesTo(client)).toBe("/account");
    const funding = await client.get("account/funding");
    expectStatus(funding, 200);
    expect(funding.json.body.account_ref).toBe(owner.accountRef);
  });

  test("the link works once", async () => {
    const again = await new TestClient(t).post("invitations/register", { token, password: PASSWORD });
    expectStatus(again, 404);
    expect(again.json.error).toContain("not valid any more");
    const page = await new TestClient(t).get(`/invite?token=${encodeURIComponent(token)}`);
    expect(page.status).toBe(404);
    expect(page.text).toContain("not valid any more");
  });

  test("a weak password is refused by name and uses nothing up", async () => {
    const other = uniqueEmail("weak");
    expectStatus(await invite(owner.client, other, "viewer"), 201);
    const otherToken = await invitationToken(t, other);
    const res = await new TestClient(t).post("invitations/register", { token: otherToken, password: "short" });
    expectStatus(res, 422);
    expect(res.json.fields.password).toBeTruthy();
    await joinAsNewPerson(t, otherToken, other, { onboard: false });
  });
});

describe("an invitation's expiry and withdrawal", () => {
  test("the link stops working after 7 days", async () => {
    const email = uniqueEmail("late");
    expectStatus(await invite(owner.client, email, "viewer"), 201);
    const token = await invitationToken(t, email);
    t.clock.advance(7 * 24 * HOUR + 1000);
    try {
      const res = await new TestClient(t).post("invitations/register", { token, password: PASSWORD });
      expectStatus(res, 404);
    } finally {
      t.clock.advance(-(7 * 24 * HOUR + 1000));
    }
  });

  test("a withdrawn invitation's link stops working, and the invitee is told", async () => {
    const email = uniqueEmail("withdrawn");
    const sent = await invite(owner.client, email, "approver");
    expectStatus(sent, 201);
    const token = await invitationToken(t, email);
    const listed = await owner.client.get("account/invitations");
    expect(listed.json.body.map((i: { email: string }) => i.email)).toContain(email);
    expectStatus(await owner.client.delete(`account/invitations/${sent.json.body.id}`), 200);
    expect((await mailTo(t.db, email)).template).toBe("account-invitation-withdrawn");
    expectStatus(await new TestClient(t).post("invitations/register", { token, password: PASSWORD }), 404);
    const after = await owner.client.get("account/invitations");
    expect(after.json.body.map((i: { email: string }) => i.email)).not.toContain(email);
  });

  test("inviting the same address again replaces the earlier link: the newest role wins", async () => {
    const email = uniqueEmail("twice");
    expectStatus(await invite(owner.client, email, "viewer"), 201);
    const first = await invitationToken(t, email);
    expectStatus(await invite(owner.client, email, "approver"), 201);
    const second = await invitationToken(t, email);
    expectStatus(await new TestClient(t).post("invitations/register", { token: first, password: PASSWORD }), 404);
    const member = await joinAsNewPerson(t, second, email, { onboard: false });
    expect((await membershipsOf(member.id)).map((m) => m.role)).toEqual(["approver"]);
  });
});

describe("someone who already has a login", () => {
  test("signs in and accepts: they now have their personal account and the business account", async () => {
    const person = await openCustomer(t);
    expectStatus(await invite(owner.client, person.email, "approver"), 201);
    const token = await invitationToken(t, person.email);

    // Registering again with the link is refused: the address has a login.
    const register = await new TestClient(t).post("invitations/register", { token, password: PASSWORD });
    expectStatus(register, 409);
    expect(register.json.error).toContain("sign in");

    const accepted = await person.client.post("account/users/accept", { token });
    expectStatus(accepted, 200);
    expect(accepted.json.body).toMatchObject({ account_ref: owner.accountRef, role: "approver", current: true });
    expect(accepted.json.redirect).toBe("/auth");
    // The session acts on the account just joined.
    expect((await person.client.get("account/funding")).json.body.account_ref).toBe(owner.accountRef);
    const memberships = await membershipsOf(person.id);
    expect(memberships.map((m) => m.role).sort()).toEqual(["approver", "owner"]);
    expectStatus(await person.client.post("account/users/accept", { token }), 404);
    const [joined] = await t.db.select().from(auditLog).where(eq(auditLog.action, "account-users.join"))
      .orderBy(auditLog.id);
    expect(joined).toBeTruthy();
  });

  test("who opens the link signed out is brought back to it after signing in", async () => {
    const person = await openCustomer(t);
    expectStatus(await invite(owner.client, person.email, "viewer"), 201);
    const token = await invitationToken(t, person.email);
    const browser = new TestClient(t);
    const page = await browser.get(`/invite?token=${encodeURIComponent(token)}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Sign in");
    await signIn(browser, person.email, person.password);
    expect(await authGoesTo(browser)).toBe(`/invite?token=${encodeURIComponent(token)}`);
    // Once: the next /auth is the ordinary one.
    expect(await authGoesTo(browser)).toBe("/account");
  });

  test("signed in with another address is refused, and the invitation still waits for its own address", async () => {
    const intended = await openCustomer(t);
    const stranger = await openCustomer(t);
    expectStatus(await invite(owner.client, intended.email, "viewer"), 201);
    const token = await invitationToken(t, intended.email);
    const refused = await stranger.client.post("account/users/accept", { token });
    expectStatus(refused, 403);
    expect(refused.json.error).toContain("another email address");
    expect(await membershipsOf(stranger.id)).toHaveLength(1);
    const page = await stranger.client.get(`/invite?token=${encodeURIComponent(token)}`);
    expect(page.text.replaceAll("<!-- -->", "")).toContain(`This invitation is for ${intended.email}`);
    expectStatus(await intended.client.post("account/users/accept", { token }), 200);
  });

  test("signed in as someone else, registering through the link is refused: they stay signed in, no login is made", async () => {
    const intended = uniqueEmail("omar");
    const stranger = await openCustomer(t);
    expectStatus(await invite(owner.client, intended, "payer"), 201);
    const token = await invitationToken(t, intended);
    const refused = await stranger.client.post("invitations/register", { token, password: PASSWORD });
    expectStatus(refused, 409);
    expect(refused.json.error).toBe(
      `You are signed in as ${stranger.email}. To create the invited person's login, sign out first, then open the invitation's link again.`,
    );
    expect(await authGoesTo(stranger.client), "still signed in as themselves").toBe("/account");
    expect(await t.db.select().from(users).where(eq(users.username, intended))).toEqual([]);
    expect(await membershipsOf(stranger.id)).toHaveLength(1);
    // The invitation still waits for its own address.
    await joinAsNewPerson(t, token, intended, { onboard: false });
  });

  test("signed in as someone else, the page offers to sign out and brings them back to the invitation", async () => {
    const intended = uniqueEmail("lena");
    const stranger = await openCustomer(t);
    expectStatus(await invite(owner.client, intended, "viewer"), 201);
    const token = await invitationToken(t, intended);
    const link = `/invite?token=${encodeURIComponent(token)}`;
    const page = await stranger.client.get(link);
    const text = page.text.replaceAll("<!-- -->", "");
    expect(text).toContain(`You are signed in as ${stranger.email}. This invitation is for ${intended}`);
    expect(text).not.toContain("Create my login");
    expect(text).toContain(`<input type="hidden" name="next" value="${link.replace("&", "&amp;")}"/>`);
    expect(text).toContain("Sign out and open the invitation");
    const form = { "content-type": "application/x-www-form-urlencoded" };
    const out = await stranger.client.request("POST", "/logout", `next=${encodeURIComponent(link)}`, form);
    expect(out.status).toBe(303);
    expect(out.headers.get("location")).toBe(link);
    const again = await stranger.client.get(link);
    expect(again.text).toContain("Create my login");
    // Signing out leads back to an invitation's link only, never elsewhere.
    const other = await openCustomer(t);
    const away = await other.client.request("POST", "/logout", "next=https%3A%2F%2Fevil.example%2F", form);
    expect(away.headers.get("location")).toBe("/");
  });

  test("signed in with another address, opening the link does not send them back to it at every sign-in", async () => {
    const intended = uniqueEmail("nina");
    const stranger = await openCustomer(t);
    expectStatus(await invite(owner.client, intended, "viewer"), 201);
    const token = await invitationToken(t, intended);
    const page = await stranger.client.get(`/invite?token=${encodeURIComponent(token)}`);
    const text = page.text.replaceAll("<!-- -->", "");
    expect(text).toContain(`If ${intended} has no Portal login yet, they register through this link.`);
    expect(await authGoesTo(stranger.client)).toBe("/account");
    await signIn(stranger.client, stranger.email, stranger.password);
    expect(await authGoesTo(stranger.client)).toBe("/account");
  });

  test("someone else's link opened signed out in this browser is dropped when another person signs in", async () => {
    const intended = await openCustomer(t);
    const other = await openCustomer(t);
    expectStatus(await invite(owner.client, intended.email, "viewer"), 201);
    const token = await invitationToken(t, intended.email);
    const browser = new TestClient(t);
    expectStatus(await browser.get(`/invite?token=${encodeURIComponent(token)}`), 200);
    await signIn(browser, other.email, other.password);
    expect(await authGoesTo(browser)).toBe("/account");
    expect(await authGoesTo(browser)).toBe("/account");
    // The invitation still waits for its own address.
    expectStatus(await intended.client.post("account/users/accept", { token }), 200);
  });

  test("an administrator acting on behalf of the customer cannot accept for them", async () => {
    const person = await openCustomer(t);
    expectStatus(await invite(owner.client, person.email, "viewer"), 201);
    const token = await invitationToken(t, person.email);
    expectStatus(await admin.client.post("account/onbehalf", { on_behalf_of: person.id }), 200);
    try {
      const res = await admin.client.post("account/users/accept", { token });
      expectStatus(res, 403);
    } finally {
      expectStatus(await admin.client.delete("account/onbehalf"), 200);
    }
    expect(await membershipsOf(person.id)).toHaveLength(1);
  });
});

describe("a business customer still waiting for their own account's review", () => {
  test("may join another account through an invitation, and their own account still opens after the review", async () => {
    const waiting = await customerWithoutAccount(t);
    expectStatus(await invite(owner.client, waiting.email, "viewer"), 201);
    expectStatus(
      await waiting.client.post("account/users/accept", { token: await invitationToken(t, waiting.email) }),
      200,
    );
    const opened = await admin.client.post(`console/users/${waiting.id}/open-account`, {
      compliance: { done: true, amount: "100000", date: t.clock.today() },
    });
    expectStatus(opened, 200);
    const memberships = await membershipsOf(waiting.id);
    expect(memberships.map((m) => m.role).sort()).toEqual(["owner", "viewer"]);
    // Opened once: the review cannot open a second one.
    const again = await admin.client.post(`console/users/${waiting.id}/open-account`, {
      compliance: { done: true, amount: "100000", date: t.clock.today() },
    });
    expectStatus(again, 409);
  });
});

describe("invitations are limited per account", () => {
  test("after 30 in an hour the account waits", async () => {
    const other = await businessOwner(t, admin);
    for (let i = 0; i < 30; i++) expectStatus(await invite(other.client, uniqueEmail("many"), "viewer"), 201);
    const refused = await invite(other.client, uniqueEmail("one-too-many"), "viewer");
    expectStatus(refused, 429);
    // Another account is not affected.
    expectStatus(await invite(owner.client, uniqueEmail("elsewhere"), "viewer"), 201);
  }, 60_000);
});

describe("a member invited with a role", () => {
  test("has that role and no other account", async () => {
    const viewer = await memberWithRole(t, owner.client, "viewer");
    expect((await membershipsOf(viewer.id)).map((m) => m.role)).toEqual(["viewer"]);
  });
});

describe("the invitations of someone who may no longer invite", () => {
  /** Whether the account's owners still see an invitation to this address waiting. */
  async function stillWaiting(email: string): Promise<boolean> {
    const listed = await owner.client.get("account/invitations");
    return listed.json.body.some((i: { email: string }) => i.email === email);
  }

  test("removing a user withdraws the invitations they sent: the links stop working, and the invitees are told", async () => {
    // An admin on their way out invites a private address of theirs as an admin.
    const leaving = await memberWithRole(t, owner.client, "admin");
    const email = uniqueEmail("leavers-own");
    expectStatus(await invite(leaving.client, email, "admin"), 201);
    const token = await invitationToken(t, email);

    expectStatus(await owner.client.delete(`account/users/${leaving.id}`), 200);

    expect(await stillWaiting(email)).toBe(false);
    expect((await mailTo(t.db, email)).template).toBe("account-invitation-withdrawn");
    expectStatus(await new TestClient(t).post("invitations/register", { token, password: PASSWORD }), 404);
  });

  test("an admin made a viewer: their invitations are withdrawn; those of the owner who did it wait on", async () => {
    const demoted = await memberWithRole(t, owner.client, "admin");
    const theirs = uniqueEmail("demoted-admins");
    expectStatus(await invite(demoted.client, theirs, "payer"), 201);
    const token = await invitationToken(t, theirs);
    const owners = uniqueEmail("owners-own");
    expectStatus(await invite(owner.client, owners, "viewer"), 201);

    expectStatus(await owner.client.put(`account/users/${demoted.id}`, { role: "viewer" }), 200);

    expect(await stillWaiting(theirs)).toBe(false);
    expectStatus(await new TestClient(t).post("invitations/register", { token, password: PASSWORD }), 404);
    expect(await stillWaiting(owners)).toBe(true);
  });
});
