import { and, desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, test } from "vitest";
import { accountMembers, auditLog } from "../../db/schema.ts";
import { accountInvitations } from "../../db/schema-payments.ts";
import { administrators } from "../../db/schema-console.ts";
import { businessOwner, invitationToken, invite, type Member, memberWithRole } from "../helpers/account-users.ts";
import { personNameOf } from "../../server/accounts/members.ts";
import {
  type Admin,
  emailedToken,
  expectStatus,
  mailTo,
  PASSWORD,
  signIn,
  TestClient,
  uniqueEmail,
} from "../helpers/client.ts";
import { testJobDeps } from "../helpers/jobs.ts";
import { JobRunner } from "../../server/jobs/runner.ts";
import { migrationJob } from "../../server/migrations/job.ts";
import { peopleByIds } from "../../server/payments/people.ts";
import { type MoneyApp, moneyApp, type OpenCustomer } from "../helpers/money.ts";

let t: MoneyApp;
let admin: Admin;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
});

async function roleOf(owner: OpenCustomer, userId: number) {
  const res = await owner.client.get("account/users");
  expectStatus(res, 200);
  return (res.json.body as { id: number; role: string }[]).find((u) => u.id === userId)?.role ?? null;
}

async function latestAudit(action: string) {
  const [row] = await t.db.select().from(auditLog).where(eq(auditLog.action, action)).orderBy(desc(auditLog.id))
    .limit(1);
  return row;
}

describe("the account's users", () => {
  let owner: OpenCustomer;
  let payer: Member;

  beforeAll(async () => {
    owner = await businessOwner(t, admin);
    payer = await memberWithRole(t, owner.client, "payer");
  });

  test("are listed for every member, with their roles and who is asking", async () => {
    const res = await payer.client.get("account/users");
    expectStatus(res, 200);
    const users = res.json.body as { id: number; email: string; role: string; you: boolean }[];
    expect(users.map((u) => [u.email, u.role, u.you])).toEqual([
      [owner.email, "owner", false],
      [payer.email, "payer", true],
    ]);
  });

  test("an owner changes a role: the person is emailed and the change audited", async () => {
    const res = await owner.client.put(`account/users/${payer.id}`, { role: "approver" });
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({ id: payer.id, role: "approver" });
    const mail = await mailTo(t.db, payer.email);
    expect(mail.template).toBe("account-access-changed");
    expect(mail.subject).toBe("Your role on Acme Trading Ltd is now approver");
    // "Contact the account's owner or us" says how to reach us: someone who did not expect it must be able to.
    expect(mail.text).toContain(t.config.supportEmail);
    const entry = await latestAudit("account-users.role");
    expect(entry).toMatchObject({ actorId: owner.id, subjectId: null });
    expect(entry.before).toMatchObject({ user_id: payer.id, role: "payer" });
    expect(entry.after).toMatchObject({ user_id: payer.id, role: "approver" });
    expectStatus(await owner.client.put(`account/users/${payer.id}`, { role: "payer" }), 200);
  });

  test("a role that does not exist is refused by name", async () => {
    const res = await owner.client.put(`account/users/${payer.id}`, { role: "superuser" });
    expectStatus(res, 422);
    expect(res.json.fields.role).toContain("Choose a role");
  });

  test("someone not on the account is not found", async () => {
    expectStatus(await owner.client.put(`account/users/${admin.id}`, { role: "viewer" }), 404);
    expectStatus(await owner.client.delete(`account/users/${admin.id}`), 404);
  });
});

describe("who may change whom", () => {
  let owner: OpenCustomer;
  let accountAdmin: Member;
  let viewer: Member;

  beforeAll(async () => {
    owner = await businessOwner(t, admin);
    accountAdmin = await memberWithRole(t, owner.client, "admin");
    viewer = await memberWithRole(t, owner.client, "viewer");
  });

  test("an admin manages everyone but owners", async () => {
    expectStatus(await accountAdmin.client.put(`account/users/${viewer.id}`, { role: "payer" }), 200);
    expect(await roleOf(owner, viewer.id)).toBe("payer");
    expectStatus(await accountAdmin.client.put(`account/users/${viewer.id}`, { role: "viewer" }), 200);
  });

  test("an admin cannot make an owner, demote or remove one, or invite one", async () => {
    const promote = await accountAdmin.client.put(`account/users/${viewer.id}`, { role: "owner" });
    expectStatus(promote, 403);
    expect(promote.json.error).toBe("Only an owner can make, demote or remove an owner.");
    const second = await memberWithRole(t, owner.client, "owner");
    expectStatus(await accountAdmin.client.put(`account/users/${second.id}`, { role: "viewer" }), 403);
    expectStatus(await accountAdmin.client.delete(`account/users/${second.id}`), 403);
    const email = uniqueEmail("would-be-owner");
    expectStatus(await invite(accountAdmin.client, email, "owner"), 403);
    expect(await roleOf(owner, second.id)).toBe("owner");
    expect(await roleOf(owner, viewer.id)).toBe("viewer");
    // The second owner leaves again, by the first owner's hand.
    expectStatus(await owner.client.delete(`account/users/${second.id}`), 200);
  });

  test("nobody changes their own role or removes themselves", async () => {
    const own = await accountAdmin.client.put(`account/users/${accountAdmin.id}`, { role: "owner" });
    expectStatus(own, 403);
    const down = await accountAdmin.client.put(`account/users/${accountAdmin.id}`, { role: "viewer" });
    expectStatus(down, 403);
    expect(down.json.error).toContain("your own role");
    expectStatus(await accountAdmin.client.delete(`account/users/${accountAdmin.id}`), 403);
    expect(await roleOf(owner, accountAdmin.id)).toBe("admin");
  });

  test("payers, approvers and viewers manage nobody", async () => {
    for (const role of ["payer", "approver", "viewer"] as const) {
      const member = await memberWithRole(t, owner.client, role);
      expectStatus(await member.client.put(`account/users/${viewer.id}`, { role: "payer" }), 403);
      expectStatus(await member.client.delete(`account/users/${viewer.id}`), 403);
      expectStatus(await invite(member.client, uniqueEmail("by-" + role), "viewer"), 403);
      expectStatus(await member.client.get("account/invitations"), 403);
    }
    expect(await roleOf(owner, viewer.id)).toBe("viewer");
  });

  test("an owner removes a user: they lose the account at once and are emailed", async () => {
    const leaving = await memberWithRole(t, owner.client, "payer");
    expectStatus(await leaving.client.get("account/balances"), 200);
    const res = await owner.client.delete(`account/users/${leaving.id}`);
    expectStatus(res, 200);
    expect((await mailTo(t.db, leaving.email)).subject).toBe("You no longer have access to Acme Trading Ltd");
    // Their only account is gone: the account's calls say so and send them to /no-account.
    const after = await leaving.client.get("account/balances");
    expectStatus(after, 403);
    expect(after.json.redirect).toBe("/no-account");
    expect((await latestAudit("account-users.remove")).before).toMatchObject({ user_id: leaving.id, role: "payer" });
  });
});

describe("the last owner", () => {
  test("cannot be demoted or removed, by themselves or anyone", async () => {
    const owner = await businessOwner(t, admin);
    const accountAdmin = await memberWithRole(t, owner.client, "admin");
    const demote = await owner.client.put(`account/users/${owner.id}`, { role: "admin" });
    expectStatus(demote, 409);
    expect(demote.json.error).toBe("The account's last owner cannot be demoted: make someone else an owner first.");
    const remove = await owner.client.delete(`account/users/${owner.id}`);
    expectStatus(remove, 409);
    expect(remove.json.error).toBe("The account's last owner cannot be removed: make someone else an owner first.");
    expectStatus(await accountAdmin.client.delete(`account/users/${owner.id}`), 409);
    expect(await roleOf(owner, owner.id)).toBe("owner");
  });

  test("two owners demoting each other at once leave one owner", async () => {
    const first = await businessOwner(t, admin);
    const second = await memberWithRole(t, first.client, "owner");
    // Read before the race: afterwards the first may be the one demoted.
    const accountId = (await accountIdOf(first)) as number;
    const [a, b] = await Promise.all([
      first.client.put(`account/users/${second.id}`, { role: "admin" }),
      second.client.put(`account/users/${first.id}`, { role: "admin" }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const owners = await t.db.select().from(accountMembers).where(
      and(eq(accountMembers.role, "owner"), eq(accountMembers.accountId, accountId)),
    );
    expect(owners).toHaveLength(1);
  });
});

describe("invitations waiting", () => {
  test("an admin cannot withdraw an owner's invitation; an owner can", async () => {
    const owner = await businessOwner(t, admin);
    const accountAdmin = await memberWithRole(t, owner.client, "admin");
    const email = uniqueEmail("future-owner");
    const sent = await invite(owner.client, email, "owner");
    expectStatus(sent, 201);
    await invitationToken(t, email);
    expectStatus(await accountAdmin.client.delete(`account/invitations/${sent.json.body.id}`), 403);
    expectStatus(await owner.client.delete(`account/invitations/${sent.json.body.id}`), 200);
    expectStatus(await owner.client.delete(`account/invitations/${sent.json.body.id}`), 404);
  });

  test("an admin cannot withdraw an owner's invitation by inviting the address again; an owner can, and it is audited", async () => {
    const owner = await businessOwner(t, admin);
    const accountAdmin = await memberWithRole(t, owner.client, "admin");
    const email = uniqueEmail("owner-to-be");
    const sent = await invite(owner.client, email, "owner");
    expectStatus(sent, 201);
    const token = await invitationToken(t, email);
    const waiting = async () =>
      ((await owner.client.get("account/invitations")).json.body as { id: number; email: string; role: string }[])
        .filter((i) => i.email === email).map((i) => [i.id, i.role]);

    const again = await invite(accountAdmin.client, email, "viewer");
    expectStatus(again, 403);
    expect(again.json.error).toBe("Only an owner can invite an owner.");
    expect(await waiting()).toEqual([[sent.json.body.id, "owner"]]);
    expect(await invitationToken(t, email)).toBe(token);

    const replaced = await invite(owner.client, email, "viewer");
    expectStatus(replaced, 201);
    expect(await waiting()).toEqual([[replaced.json.body.id, "viewer"]]);
    const withdrawn = await latestAudit("account-users.revoke");
    expect(withdrawn).toMatchObject({ actorId: owner.id, subjectId: null, accountId: expect.any(Number) });
    expect(withdrawn.before).toEqual({ invitation_id: sent.json.body.id, email, role: "owner" });
    expect(withdrawn.after).toEqual({ replaced_by_invitation_id: replaced.json.body.id, role: "viewer" });
  });

  test("an invitation of another account is not found", async () => {
    const one = await businessOwner(t, admin);
    const other = await businessOwner(t, admin);
    const sent = await invite(one.client, uniqueEmail("theirs"), "viewer");
    expectStatus(sent, 201);
    expectStatus(await other.client.delete(`account/invitations/${sent.json.body.id}`), 404);
  });
});

describe("an administrator acting on behalf of the owner", () => {
  test("manages users with the owner's rights, and the audit log names both", async () => {
    const owner = await businessOwner(t, admin);
    const viewer = await memberWithRole(t, owner.client, "viewer");
    expectStatus(await admin.client.post("account/onbehalf", { on_behalf_of: owner.id }), 200);
    try {
      expectStatus(await admin.client.put(`account/users/${viewer.id}`, { role: "payer" }), 200);
    } finally {
      expectStatus(await admin.client.delete("account/onbehalf"), 200);
    }
    expect(await latestAudit("account-users.role")).toMatchObject({ actorId: admin.id, subjectId: owner.id });
  });

  test("gives nobody a role that approves payments, by invitation or role change: the customer's own people do", async () => {
    const owner = await businessOwner(t, admin);
    const payer = await memberWithRole(t, owner.client, "payer");
    expectStatus(await admin.client.post("account/onbehalf", { on_behalf_of: owner.id }), 200);
    try {
      for (const role of ["approver", "admin", "owner"] as const) {
        const promoted = await admin.client.put(`account/users/${payer.id}`, { role });
        expectStatus(promoted, 403);
        expect(promoted.json.error).toContain("cannot give anyone a role that approves payments");
        expectStatus(await invite(admin.client, uniqueEmail(`staff-${role}`), role), 403);
      }
      // The page offers them only the roles they may give, and says why.
      const page = await admin.client.get("/account/users");
      expectStatus(page, 200);
      expect(page.text).toContain("are the customer&#x27;s own people to add");
      expect(page.text).not.toMatch(/"role":"approver","description"/);
      expect(page.text).toMatch(/"role":"payer","description"/);
    } finally {
      expectStatus(await admin.client.delete("account/onbehalf"), 200);
    }
    const members = (await owner.client.get("account/users")).json.body as { id: number; role: string }[];
    expect(members.find((m) => m.id === payer.id)?.role).toBe("payer");
    expect((await owner.client.get("account/invitations")).json.body).toEqual([]);
    // The owner themself still can.
    expectStatus(await owner.client.put(`account/users/${payer.id}`, { role: "approver" }), 200);
  });

  test("an invitation made on the owner's behalf records the administrator who made it; the owner's own, nobody", async () => {
    const owner = await businessOwner(t, admin);
    expectStatus(await admin.client.post("account/onbehalf", { on_behalf_of: owner.id }), 200);
    let ours;
    try {
      ours = await invite(admin.client, uniqueEmail("recorded"), "viewer");
      expectStatus(ours, 201);
    } finally {
      expectStatus(await admin.client.delete("account/onbehalf"), 200);
    }
    const own = await invite(owner.client, uniqueEmail("own-recorded"), "viewer");
    expectStatus(own, 201);
    const recorded = async (id: number) =>
      (await t.db.select().from(accountInvitations).where(eq(accountInvitations.id, id)))[0];
    expect(await recorded(ours.json.body.id)).toMatchObject({ invitedBy: owner.id, onBehalfAdminId: admin.id });
    expect(await recorded(own.json.body.id)).toMatchObject({ invitedBy: owner.id, onBehalfAdminId: null });
  });

  test("a member of our team with a name in the console is named by it where the customer's people read", async () => {
    const named = await moneyApp();
    const owner = await businessOwner(named.t, named.admin);
    const ownerName = await personNameOf(named.t.db, owner.id);
    await named.t.db.insert(administrators).values({ userId: named.admin.id, name: "Olga Ops" })
      .onConflictDoUpdate({ target: administrators.userId, set: { name: "Olga Ops" } });
    expectStatus(await named.admin.client.post("account/onbehalf", { on_behalf_of: owner.id }), 200);
    try {
      const invitation = await invite(named.admin.client, uniqueEmail("named-staff"), "viewer");
      expectStatus(invitation, 201);
      expect(invitation.json.body.invited_by).toBe(`Olga Ops of our team (on behalf of ${ownerName})`);
    } finally {
      expectStatus(await named.admin.client.delete("account/onbehalf"), 200);
    }
    expect((await peopleByIds(named.t.db, [named.admin.id])).get(named.admin.id)?.name).toBe("Olga Ops");
  });

  test("what the account's people read credits our team on the owner's behalf, not the owner", async () => {
    const owner = await businessOwner(t, admin);
    const viewer = await memberWithRole(t, owner.client, "viewer");
    const ownerName = await personNameOf(t.db, owner.id);
    // The administrator has no name but their address, which is not given to the customer's people.
    const ours = `A member of our team (on behalf of ${ownerName})`;
    const words = async (to: string) => (await mailTo(t.db, to)).text!.replace(/\s+/g, " ");
    const invitee = uniqueEmail("on-behalf");
    const withdrawn = uniqueEmail("withdrawn");
    expectStatus(await admin.client.post("account/onbehalf", { on_behalf_of: owner.id }), 200);
    let invitation;
    try {
      expectStatus(await admin.client.put(`account/users/${viewer.id}`, { role: "payer" }), 200);
      expect(await words(viewer.email)).toContain(`${ours} changed your role on the Portal account of`);

      invitation = await invite(admin.client, invitee, "payer");
      expectStatus(invitation, 201);
      expect(invitation.json.body.invited_by).toBe(ours);
      expect(await words(invitee)).toContain(`${ours} invited you to use the Portal account of`);
      expect(await words(invitee)).not.toContain(admin.email);
      const other = await invite(admin.client, withdrawn, "viewer");
      expectStatus(other, 201);
      expectStatus(await admin.client.delete(`account/invitations/${other.json.body.id}`), 200);
      expect(await words(withdrawn)).toContain(`${ours} withdrew the invitation`);
    } finally {
      expectStatus(await admin.client.delete("account/onbehalf"), 200);
    }
    // Read later by the owner, and by the invitee on the link's page: still our team's doing.
    const listed = await owner.client.get("account/invitations");
    expectStatus(listed, 200);
    expect(listed.json.body.find((i: { id: number }) => i.id === invitation.json.body.id).invited_by).toBe(ours);
    const token = await invitationToken(t, invitee);
    const page = await new TestClient(t).get(`/invite?token=${encodeURIComponent(token)}`);
    expectStatus(page, 200);
    expect(page.text.replace(/\s+/g, " ")).toContain("of our team (on behalf of");

    // What the owner does themself is still theirs.
    const own = await invite(owner.client, uniqueEmail("own"), "viewer");
    expect(own.json.body.invited_by).toBe(ownerName);
    expectStatus(await owner.client.delete(`account/users/${viewer.id}`), 200);
    expect(await words(viewer.email)).toContain(`${ownerName} removed you from the Portal account of`);
  });
});

async function accountIdOf(owner: OpenCustomer): Promise<number | undefined> {
  const [row] = await t.db.select().from(accountMembers).where(
    and(eq(accountMembers.userId, owner.id), eq(accountMembers.role, "owner")),
  );
  return row?.accountId;
}

/**
 * A customer brought over from the old system (decision 049), signed in with the emailed link's
 * password and joined through an invitation: no profile yet, their name only on their migration line.
 */
async function migratedCustomer(first: string, last: string) {
  const email = uniqueEmail("migrated");
  const csv = [
    "legacy_id,email,type,first_name,last_name,country",
    `L-${Date.now()}-${email},${email},Personal,${first},${last},GB`,
  ].join("\r\n");
  const uploaded = await admin.client.request("POST", "console/migrations?dry_run=false&file_name=old.csv", csv, {
    "content-type": "text/csv",
  });
  expectStatus(uploaded, 201);
  await new JobRunner({ db: t.db, jobs: [migrationJob], deps: await testJobDeps(t.db), now: t.clock.now }).drain();
  const { token } = await emailedToken(t.db, email, "migration-welcome");
  const client = new TestClient(t);
  expectStatus(await client.post("auth/forgot/reset", { username: email, token, password: PASSWORD }), 200);
  const signedIn = await signIn(client, email, PASSWORD);
  return { client, id: signedIn.json.body.id as number, email };
}

describe("a migrated customer who has saved no profile yet", () => {
  test("is named by their migration line's names wherever the account's people read who they are", async () => {
    const owner = await businessOwner(t, admin);
    const stem = `Quill${Date.now().toString(36)}`;
    const person = await migratedCustomer("Wilhelmina", `${stem}feather`);
    const name = `Wilhelmina ${stem}feather`;
    expectStatus(await invite(owner.client, person.email, "viewer"), 201);
    const token = await invitationToken(t, person.email);
    expectStatus(await person.client.post("account/users/accept", { token }), 200);

    // Who prepared or approved a payment, who set a rule (peopleByIds): the one reader of a name.
    expect((await peopleByIds(t.db, [person.id])).get(person.id)?.name).toBe(name);
    // Who acts on a payment or an invitation.
    expect(await personNameOf(t.db, person.id)).toBe(name);
    // The account's users list.
    const listed = await owner.client.get("account/users");
    expectStatus(listed, 200);
    expect(listed.json.body.find((u: { id: number }) => u.id === person.id)?.name).toBe(name);
    // The email telling them their role changed, and the one telling them they were removed.
    const changed = await owner.client.put(`account/users/${person.id}`, { role: "payer" });
    expectStatus(changed, 200);
    expect(changed.json.body.name).toBe(name);
    expect((await mailTo(t.db, person.email)).text).toContain(`Hello ${name},`);
    expectStatus(await owner.client.delete(`account/users/${person.id}`), 200);
    expect((await mailTo(t.db, person.email)).text).toMatch(new RegExp(`Hello ${name},[\\s\\S]*removed you`));
  });
});
