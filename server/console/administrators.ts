import { and, asc, eq, isNotNull, isNull, ne, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { z } from "zod";
import type { Database } from "../../db/client.ts";
import { sessions, users, verifications } from "../../db/schema.ts";
import { administrators } from "../../db/schema-console.ts";
import type { Tx } from "../../db/sql.ts";
import type { administratorRow } from "../../lib/contracts/console-admins.ts";
import { audit } from "../audit.ts";
import { VALID_FOR_MS } from "../auth/verification.ts";
import type { SignInDeps } from "../auth/deps.ts";
import { normalizeUsername } from "../auth/users.ts";
import { Conflict, NotFound } from "../errors.ts";
import { administratorInvitation } from "../mail/index.ts";

/**
 * The console's administrators (decision 044): who they are, an invitation by email that lets the
 * invitee choose a password on /forgot (then sign in with the second factor like every
 * administrator), and disabling one, which ends their sessions at once and stops their sign-in.
 * The last active administrator cannot be disabled, and nobody disables themselves. Once the portal
 * has had a second administrator, an invitation waits for another administrator's approval before
 * its link is emailed (four eyes: one person must not make themselves a second identity).
 */

export type Administrator = z.output<typeof administratorRow>;

export const NO_SUCH_ADMINISTRATOR = "There is no administrator with this id.";
export const LAST_ACTIVE_ADMINISTRATOR =
  "The last active administrator cannot be disabled: invite another and let them sign in first.";
export const NOT_YOURSELF = "You cannot disable yourself: ask another administrator to do it.";
export const ALREADY_ADMINISTRATOR = "This person is already an administrator.";
export const CUSTOMER_EMAIL = "A customer signs in with this email; an administrator needs an address of their own.";
export const DISABLED_ADMINISTRATOR = "This administrator is disabled; a disabled administrator is not invited again.";
export const OWN_INVITATION =
  "You asked for this administrator: another administrator must approve or refuse the invitation. You can withdraw it.";
export const NOT_WAITING = "This invitation is not waiting for approval.";

/**
 * Whether this administrator's invitation link was ever issued: at the invitation by an
 * administrator alone, or at a second administrator's approval. An invitee without one waits for
 * that approval (the `verifications` rows are kept, used or not, so this stays true).
 */
const linkIssued = sql<number>`EXISTS (SELECT 1 FROM ${verifications} WHERE ${verifications.userId} = ${users.id}
  AND ${verifications.purpose} = 'admin-invitation')`;

/** How many administrators other than this one are active: have a password and are not disabled. */
async function othersActive(db: Database | Tx, except: number): Promise<number> {
  const [others] = await db.select({ n: sql<number>`count(*)` }).from(users)
    .leftJoin(administrators, eq(administrators.userId, users.id))
    .where(and(
      eq(users.level, "Admin"),
      ne(users.id, except),
      isNotNull(users.passwordHash),
      isNull(administrators.disabledAt),
    ));
  return others.n;
}

/**
 * Whether an administrator other than this one ever could act (chose a password), disabled since or
 * not. Only an administrator who never had such a colleague invites without a second one (the
 * company's first steps): one who disabled the others would otherwise be "alone" again, and invite
 * whom they like, their own second mailbox included. Their invitation then waits for an
 * administrator who can approve it; with none active, `deno task admin:create` on the server is
 * the way in, outside the console.
 */
async function everHadColleague(db: Database | Tx, except: number): Promise<boolean> {
  const [other] = await db.select({ id: users.id }).from(users)
    .where(and(eq(users.level, "Admin"), ne(users.id, except), isNotNull(users.passwordHash))).limit(1);
  return other !== undefined;
}

/** This user's status as an administrator (active, invited, waiting, disabled); null for a customer. */
export async function administratorStatus(db: Database, userId: number): Promise<Administrator["status"] | null> {
  const [row] = await listAdministrators(db, userId);
  return row?.status ?? null;
}

/**
 * Whether this user is an administrator with no way in for a reset link to give: an invitation that
 * waits for a second administrator (the link would choose a password without the approval), or one
 * disabled (who left, or whose invitation was refused or withdrawn: the password would sign into
 * nothing). Neither /forgot nor the "sign-in paused" notice sends them one.
 */
export async function noLinkToSend(db: Database, userId: number): Promise<boolean> {
  const status = await administratorStatus(db, userId);
  return status === "waiting" || status === "disabled";
}

/** Whether this user is an administrator who was disabled (sign-in refuses them). */
export async function isDisabledAdministrator(db: Database, userId: number): Promise<boolean> {
  const [row] = await db.select({ at: administrators.disabledAt }).from(administrators)
    .where(eq(administrators.userId, userId));
  return !!row?.at;
}

/** A full sign-in (the second factor passed): the list's "last sign-in". */
export async function recordSignIn(db: Database, userId: number, now: Date): Promise<void> {
  await db.update(users).set({ lastSignInAt: now }).where(eq(users.id, userId));
}

const inviter = alias(users, "inviter");

/**
 * Active: has a password and is not disabled. Invited: no password yet, the link emailed.
 * Waiting: no link yet, a second administrator has to approve the invitation.
 */
function statusOf(
  row: { disabledAt: Date | null; hasPassword: boolean; linkIssued: boolean },
): Administrator["status"] {
  if (row.disabledAt) return "disabled";
  if (row.hasPassword) return "active";
  return row.linkIssued ? "invited" : "waiting";
}

/** Every administrator, the first one first. */
export async function listAdministrators(db: Database | Tx, only?: number): Promise<Administrator[]> {
  const rows = await db.select({
    id: users.id,
    email: users.username,
    name: administrators.name,
    hasPassword: sql<number>`${users.passwordHash} IS NOT NULL`,
    linkIssued,
    authenticator: sql<number>`${users.totpSecret} IS NOT NULL`,
    lastSignInAt: users.lastSignInAt,
    createdAt: users.createdAt,
    invitedAt: administrators.invitedAt,
    invitedBy: inviter.username,
    disabledAt: administrators.disabledAt,
  }).from(users)
    .leftJoin(administrators, eq(administrators.userId, users.id))
    .leftJoin(inviter, eq(inviter.id, administrators.invitedBy))
    .where(only === undefined ? eq(users.level, "Admin") : and(eq(users.level, "Admin"), eq(users.id, only)))
    .orderBy(asc(users.id));
  return rows.map((row) => ({
    id: row.id,
    email: row.email,
    name: row.name ?? "",
    status: statusOf({ disabledAt: row.disabledAt, hasPassword: !!row.hasPassword, linkIssued: !!row.linkIssued }),
    second_factor: row.authenticator ? "authenticator-app" : "emailed-code",
    last_sign_in_at: row.lastSignInAt?.toISOString() ?? null,
    invited_at: row.invitedAt?.toISOString() ?? null,
    invited_by: row.invitedBy ?? null,
    disabled_at: row.disabledAt?.toISOString() ?? null,
  }));
}

async function oneAdministrator(db: Database | Tx, id: number): Promise<Administrator> {
  const [row] = await listAdministrators(db, id);
  if (!row) throw new NotFound(NO_SUCH_ADMINISTRATOR);
  return row;
}

type InvitationDeps = Pick<SignInDeps, "db" | "verifications" | "mailer" | "publicUrl">;

/**
 * Invites an administrator: a user of level Admin without a password, and an emailed link (valid
 * 72 hours, single use) to choose one on /forgot. The invitation waits, without a link, for another
 * administrator to approve it (`approveInvitation`), except from the portal's only administrator so
 * far (the company's first steps: no other ever chose a password), who has nobody to ask: the link
 * goes at once and the audit entry says no second administrator checked it. One left alone by
 * disabling the others still waits (`everHadColleague`). Inviting someone invited and not yet in
 * sends a new link (the old one stops working), for the link that expired or was lost; an
 * invitation still waiting stays as it was asked, until approved.
 */
export async function inviteAdministrator(
  deps: InvitationDeps,
  input: { email: string; name: string },
  by: number,
  now: Date,
): Promise<Administrator> {
  const username = normalizeUsername(input.email);
  const { id, secret } = await deps.db.transaction(async (tx) => {
    const [existing] = await tx.select({
      id: users.id,
      level: users.level,
      passwordHash: users.passwordHash,
      disabledAt: administrators.disabledAt,
      linkIssued,
    }).from(users).leftJoin(administrators, eq(administrators.userId, users.id)).where(eq(users.username, username));
    if (existing && existing.level !== "Admin") throw new Conflict(CUSTOMER_EMAIL);
    if (existing?.disabledAt) throw new Conflict(DISABLED_ADMINISTRATOR);
    if (existing?.passwordHash) throw new Conflict(ALREADY_ADMINISTRATOR);
    const approved = !!existing?.linkIssued;
    const alone = !(await everHadColleague(tx, by));
    // Asked again while it waits: the request stays as the approver sees it (name, who asked).
    if (existing && !approved && !alone) return { id: existing.id, secret: null };
    let id = existing?.id;
    if (id === undefined) {
      const [created] = await tx.insert(users).values({
        username,
        passwordHash: null,
        level: "Admin",
        validated: true,
        restricted: false,
        createdAt: now,
      }).returning({ id: users.id });
      id = created.id;
    }
    await tx.insert(administrators).values({ userId: id, name: input.name, invitedBy: by, invitedAt: now })
      .onConflictDoUpdate({ target: administrators.userId, set: { name: input.name, invitedBy: by, invitedAt: now } });
    const send = approved || alone;
    await audit(tx, {
      actor: by,
      subject: id,
      action: "admin.invite",
      before: existing ? { email: username, status: approved ? "invited" : "waiting" } : null,
      after: {
        email: username,
        name: input.name,
        status: send ? "invited" : "waiting",
        // Said in the entry, so that a reader of the log sees which invitations nobody checked.
        ...(send && !approved
          ? { second_administrator: "none: the inviter was the portal's only administrator so far" }
          : {}),
      },
    }, now);
    return { id, secret: send ? await deps.verifications.issueIn(tx, id, "admin-invitation") : null };
    // IMMEDIATE: the check for an existing user and the insert are one step, as in createAdministrator.
  }, { behavior: "immediate" });
  if (secret) await emailInvitation(deps, id, secret, now);
  return await oneAdministrator(deps.db, id);
}

/**
 * Emails the invitee their invitation link, naming who invited them. The link (any earlier one
 * stops working) is issued in the transaction that decided to send it: the link's existence is what
 * marks the invitation approved (`linkIssued`), so a second decision at the same moment, an
 * approval or a refusal, finds it no longer waiting rather than both going through.
 */
async function emailInvitation(deps: InvitationDeps, id: number, secret: string, now: Date): Promise<void> {
  const [invitee] = await deps.db.select({ email: users.username, invitedBy: administrators.invitedBy }).from(users)
    .innerJoin(administrators, eq(administrators.userId, users.id)).where(eq(users.id, id));
  const [who] = await deps.db.select({ email: users.username, name: administrators.name }).from(users)
    .leftJoin(administrators, eq(administrators.userId, users.id)).where(eq(users.id, invitee.invitedBy ?? 0));
  await deps.mailer.send({
    to: invitee.email,
    userId: id,
    template: "administrator-invitation",
    rendered: administratorInvitation({
      invitedBy: who?.name || who?.email || "An administrator",
      link: `${deps.publicUrl}/forgot?token=${encodeURIComponent(secret)}&username=${
        encodeURIComponent(invitee.email)
      }&invited=1`,
      expiresAt: new Date(now.getTime() + VALID_FOR_MS["admin-invitation"]),
    }),
  });
}

/** An administrator (or one invited) as a decision about them reads it, in its transaction; 404 for anyone else. */
async function administratorAsIs(tx: Tx, id: number) {
  const [target] = await tx.select({
    id: users.id,
    email: users.username,
    passwordHash: users.passwordHash,
    disabledAt: administrators.disabledAt,
    invitedBy: administrators.invitedBy,
    linkIssued,
  }).from(users).leftJoin(administrators, eq(administrators.userId, users.id))
    .where(and(eq(users.id, id), eq(users.level, "Admin")));
  if (!target) throw new NotFound(NO_SUCH_ADMINISTRATOR);
  return target;
}

/**
 * The invitation waiting for a second administrator, checked in the caller's IMMEDIATE
 * transaction: someone else than its inviter decides it (the inviter withdraws it instead).
 */
async function waitingInvitation(tx: Tx, id: number, by: number): Promise<{ email: string }> {
  const target = await administratorAsIs(tx, id);
  if (target.passwordHash || target.disabledAt || target.linkIssued) throw new Conflict(NOT_WAITING);
  if (target.invitedBy === by) throw new Conflict(OWN_INVITATION);
  return { email: target.email };
}

/** A second administrator approves a waiting invitation: its link is emailed now. */
export async function approveInvitation(
  deps: InvitationDeps,
  id: number,
  by: number,
  now: Date,
): Promise<Administrator> {
  const secret = await deps.db.transaction(async (tx) => {
    const { email } = await waitingInvitation(tx, id, by);
    await audit(tx, {
      actor: by,
      subject: id,
      action: "admin.approve",
      before: { email, status: "waiting" },
      after: { email, status: "invited" },
    }, now);
    return await deps.verifications.issueIn(tx, id, "admin-invitation");
  }, { behavior: "immediate" });
  await emailInvitation(deps, id, secret, now);
  return await oneAdministrator(deps.db, id);
}

/**
 * A second administrator refuses a waiting invitation, with the reason kept in the audit log: no
 * link is ever sent, and the row ends disabled like an administrator who left.
 */
export async function refuseInvitation(
  db: Database,
  id: number,
  reason: string,
  by: number,
  now: Date,
): Promise<Administrator> {
  await db.transaction(async (tx) => {
    const { email } = await waitingInvitation(tx, id, by);
    await tx.update(administrators).set({ disabledAt: now, disabledBy: by }).where(eq(administrators.userId, id));
    await audit(tx, {
      actor: by,
      subject: id,
      action: "admin.refuse",
      before: { email, status: "waiting" },
      after: { email, status: "disabled", reason },
    }, now);
  }, { behavior: "immediate" });
  return await oneAdministrator(db, id);
}

/**
 * Disables an administrator: every session of theirs ends in the same transaction, an unused
 * invitation stops working, and sign-in refuses them from then on. Checked in one IMMEDIATE
 * transaction so that two administrators disabling each other at once leave one active. Disabling
 * someone disabled already changes nothing and answers the same.
 */
export async function disableAdministrator(db: Database, id: number, by: number, now: Date): Promise<Administrator> {
  await db.transaction(async (tx) => {
    const target = await administratorAsIs(tx, id);
    if (target.disabledAt) return;
    // The last rule first: a lone administrator disabling themselves hears why it cannot be.
    if (target.passwordHash && (await othersActive(tx, id)) === 0) throw new Conflict(LAST_ACTIVE_ADMINISTRATOR);
    if (id === by) throw new Conflict(NOT_YOURSELF);
    const status = statusOf({ disabledAt: null, hasPassword: !!target.passwordHash, linkIssued: !!target.linkIssued });
    await tx.insert(administrators).values({ userId: id, disabledAt: now, disabledBy: by })
      .onConflictDoUpdate({ target: administrators.userId, set: { disabledAt: now, disabledBy: by } });
    await tx.delete(sessions).where(eq(sessions.userId, id));
    await tx.update(verifications).set({ usedAt: now }).where(
      and(eq(verifications.userId, id), isNull(verifications.usedAt)),
    );
    await audit(tx, {
      actor: by,
      subject: id,
      // Its inviter taking back an invitation nobody approved yet is a withdrawal, not a disabling.
      action: status === "waiting" && target.invitedBy === by ? "admin.withdraw" : "admin.disable",
      before: { status },
      after: { status: "disabled" },
    }, now);
  }, { behavior: "immediate" });
  return await oneAdministrator(db, id);
}
