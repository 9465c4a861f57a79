import { and, asc, eq, gt, isNull } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { accountInvitations } from "../../db/schema-payments.ts";
import { accountMembers, accounts, users } from "../../db/schema.ts";
import { type AccountRole, may } from "../../lib/permissions.ts";
import type { Tx } from "../../db/sql.ts";
import { audit } from "../audit.ts";
import { hashPassword } from "../auth/password.ts";
import { type Limit, type RateLimiter, REGISTRATIONS_PER_ADDRESS, TOKEN_FAILURES } from "../auth/rate-limit.ts";
import { randomToken, sha256Hex } from "../auth/tokens.ts";
import { findUserByUsername, type UserRow } from "../auth/users.ts";
import type { Verifications } from "../auth/verification.ts";
import { TOO_MANY_ATTEMPTS } from "../../lib/contracts/auth.ts";
import { spendWithinLimit } from "../auth/attempts.ts";
import { Conflict, InvalidInput, NotFound, Refused, TooMany } from "../errors.ts";
import { accountInvitation, accountInvitationWithdrawn, type Mailer, secondFactorCode } from "../mail/index.ts";
import { markFundedOnJoining } from "../partners/funded.ts";
import { peopleByIds, type Person } from "../payments/people.ts";
import { type AccountActor, type AccountRefs, actedByWords, onBehalfWords } from "./members.ts";
import { checkInvitedRole, checkRoleGivenOnBehalf } from "./role-rules.ts";

/**
 * Invitations to an account (decision 028): an owner or admin invites an email address with a
 * role; the emailed link (`/invite?token=`) works once, for 7 days, for that address only. Only the
 * token's SHA-256 is kept. A new person registers through it (the link proves the address); someone
 * with a login signs in and accepts.
 */

export const INVITATION_VALID_MS = 7 * 24 * 60 * 60 * 1000;
/** Invitations one account may send: enough to bring a team in, too few to send spam through us. */
export const INVITATIONS_PER_ACCOUNT: Limit = { max: 30, windowMs: 60 * 60 * 1000, blockMs: 60 * 60 * 1000 };

export const INVITATION_NOT_VALID =
  "This invitation is not valid any more: it was used, withdrawn or has expired. Ask for a new one.";

export interface InvitationDeps {
  db: Database;
  mailer: Mailer;
  limiter: RateLimiter;
  publicUrl: string;
  supportEmail: string;
}

export interface InvitationAnswer {
  id: number;
  email: string;
  role: AccountRole;
  invited_by: string;
  created_at: string;
  expires_at: string;
}

type InvitationRow = typeof accountInvitations.$inferSelect;

const hashOf = (token: string) => sha256Hex(`account-invitation:${token}`);

function invitationAnswer(row: InvitationRow, invitedBy: string): InvitationAnswer {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    invited_by: invitedBy,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
  };
}

const pending = (now: Date) =>
  and(
    isNull(accountInvitations.acceptedAt),
    isNull(accountInvitations.revokedAt),
    gt(accountInvitations.expiresAt, now),
  );

/** Who did it: the customer, or the administrator acting for them (then the customer is the subject). */
function auditIds(actor: AccountActor, accountId: number) {
  return {
    actor: actor.onBehalfAdminId ?? actor.userId,
    subject: actor.onBehalfAdminId ? actor.userId : null,
    account: accountId,
  };
}

/**
 * Invites an email address to a business account with a role and emails the link. Inviting an
 * address again replaces its earlier invitation (that link stops working): the newest role wins.
 */
export async function invite(
  deps: InvitationDeps,
  account: AccountRefs,
  actor: AccountActor,
  input: { email: string; role: AccountRole },
  now: Date,
): Promise<InvitationAnswer> {
  if (account.accountType !== "Business") {
    throw new Refused("A personal account has one user: invitations are for business accounts.");
  }
  checkInvitedRole(actor.role, input.role);
  checkRoleGivenOnBehalf(actor, input.role);
  const [member] = await deps.db.select({ id: users.id }).from(accountMembers)
    .innerJoin(users, eq(users.id, accountMembers.userId))
    .where(and(eq(accountMembers.accountId, account.accountId), eq(users.username, input.email)));
  if (member) throw new InvalidInput(`${input.email} is already a user of this account.`, "email");
  // Replacing an invitation withdraws it: refused before anything is spent to whoever may not
  // withdraw it (checked again with the withdrawal, in case one arrives meanwhile).
  replaceable(actor, await waitingFor(deps.db, account.accountId, input.email, now));
  await spendWithinLimit(
    deps.limiter,
    `invite:account:${account.accountId}`,
    INVITATIONS_PER_ACCOUNT,
    "This account has sent many invitations in the last hour. Try again later.",
  );

  const token = randomToken();
  const expiresAt = new Date(now.getTime() + INVITATION_VALID_MS);
  const row = await deps.db.transaction(async (tx) => {
    const replaced = replaceable(
      actor,
      await tx.update(accountInvitations).set({ revokedAt: now }).where(
        and(
          eq(accountInvitations.accountId, account.accountId),
          eq(accountInvitations.email, input.email),
          pending(now),
        ),
      ).returning(),
    );
    const [row] = await tx.insert(accountInvitations).values({
      accountId: account.accountId,
      email: input.email,
      role: input.role,
      tokenHash: await hashOf(token),
      invitedBy: actor.userId,
      onBehalfAdminId: actor.onBehalfAdminId,
      createdAt: now,
      expiresAt,
    }).returning();
    // The invitation replaced is withdrawn as surely as by its Withdraw button: recorded as such.
    for (const old of replaced) {
      await audit(tx, {
        ...auditIds(actor, account.accountId),
        action: "account-users.revoke",
        before: { invitation_id: old.id, email: old.email, role: old.role },
        after: { replaced_by_invitation_id: row.id, role: input.role },
      }, now);
    }
    await audit(tx, {
      ...auditIds(actor, account.accountId),
      action: "account-users.invite",
      before: null,
      after: { invitation_id: row.id, email: input.email, role: input.role },
    }, now);
    return row;
  });
  const invitedBy = await actedByWords(deps.db, actor);
  await deps.mailer.send({
    to: input.email,
    template: "account-invitation",
    rendered: accountInvitation({
      invitedBy,
      accountName: account.accountName,
      role: input.role,
      link: `${deps.publicUrl}/invite?token=${encodeURIComponent(token)}`,
      expiresAt,
    }),
  });
  return invitationAnswer(row, invitedBy);
}

/** The address's invitations still waiting on the account (one at most: a new one replaces it). */
async function waitingFor(db: Database, accountId: number, email: string, now: Date): Promise<InvitationRow[]> {
  return await db.select().from(accountInvitations)
    .where(and(eq(accountInvitations.accountId, accountId), eq(accountInvitations.email, email), pending(now)));
}

/**
 * Inviting an address again withdraws its waiting invitation: the same rule as withdrawing it
 * (only an owner withdraws an owner's invitation), else an admin could undo an owner's invitation
 * by re-inviting the address with a lesser role. Answers the invitations when allowed.
 */
function replaceable(actor: AccountActor, waiting: InvitationRow[]): InvitationRow[] {
  for (const row of waiting) checkInvitedRole(actor.role, row.role);
  return waiting;
}

/** The account's invitations still waiting, oldest first. */
export async function listInvitations(db: Database, accountId: number, now: Date): Promise<InvitationAnswer[]> {
  const rows = await db.select().from(accountInvitations)
    .where(and(eq(accountInvitations.accountId, accountId), pending(now)))
    .orderBy(asc(accountInvitations.id));
  const people = await peopleByIds(db, rows.flatMap((r) => [r.invitedBy, r.onBehalfAdminId]));
  return rows.map((r) => invitationAnswer(r, invitedByIn(people, r)));
}

/**
 * Who made an invitation, as its invitee and the account's users read it: the customer, credited
 * to the administrator it records when one made it on the customer's behalf.
 */
function invitedByIn(people: Map<number, Person>, row: InvitationRow): string {
  const nameOf = (id: number) => people.get(id)?.name ?? "Someone";
  const customer = nameOf(row.invitedBy);
  return row.onBehalfAdminId === null ? customer : onBehalfWords(nameOf(row.onBehalfAdminId), customer);
}

/** Withdraws a waiting invitation: its link stops working, and the invitee is told. */
export async function revokeInvitation(
  deps: InvitationDeps,
  account: AccountRefs,
  actor: AccountActor,
  invitationId: number,
  now: Date,
): Promise<void> {
  const row = await deps.db.transaction(async (tx) => {
    const [row] = await tx.select().from(accountInvitations).where(
      and(eq(accountInvitations.id, invitationId), eq(accountInvitations.accountId, account.accountId), pending(now)),
    );
    if (!row) throw new NotFound("There is no such invitation waiting on this account.");
    checkInvitedRole(actor.role, row.role);
    await tx.update(accountInvitations).set({ revokedAt: now }).where(eq(accountInvitations.id, row.id));
    await audit(tx, {
      ...auditIds(actor, account.accountId),
      action: "account-users.revoke",
      before: { invitation_id: row.id, email: row.email, role: row.role },
      after: null,
    }, now);
    return row;
  });
  await tellWithdrawn(deps, account, actor, [row]);
}

/** Tells the invitees of withdrawn invitations that their links no longer work, and who withdrew them. */
export async function tellWithdrawn(
  deps: Pick<InvitationDeps, "db" | "mailer">,
  account: AccountRefs,
  actor: AccountActor,
  rows: InvitationRow[],
): Promise<void> {
  if (!rows.length) return;
  const withdrawnBy = await actedByWords(deps.db, actor);
  for (const row of rows) {
    await deps.mailer.send({
      to: row.email,
      template: "account-invitation-withdrawn",
      rendered: accountInvitationWithdrawn({ accountName: account.accountName, withdrawnBy }),
    });
  }
}

/**
 * Withdraws, in the caller's transaction (a removal or a change of role), the invitations a user
 * sent on the account that they could not send now (decision 076, amended): every one once they
 * are removed (`role` null) or in a role that does not manage users, an owner's invitation once
 * they are not an owner. A link must not outlive the right of whoever sent it: someone leaving
 * could otherwise invite an address of their own on the way out. Each is audited as a withdrawal;
 * answers them, for `tellWithdrawn` once the transaction is done.
 */
export async function withdrawInvitationsOf(
  tx: Tx,
  account: AccountRefs,
  actor: AccountActor,
  inviterId: number,
  role: AccountRole | null,
  now: Date,
): Promise<InvitationRow[]> {
  const waiting = await tx.select().from(accountInvitations).where(
    and(
      eq(accountInvitations.accountId, account.accountId),
      eq(accountInvitations.invitedBy, inviterId),
      pending(now),
    ),
  );
  const couldSend = (invited: AccountRole) =>
    role !== null && may(role, "users.manage") && (invited !== "owner" || role === "owner");
  const withdrawn = waiting.filter((row) => !couldSend(row.role));
  for (const row of withdrawn) {
    await tx.update(accountInvitations).set({ revokedAt: now }).where(eq(accountInvitations.id, row.id));
    await audit(tx, {
      ...auditIds(actor, account.accountId),
      action: "account-users.revoke",
      before: { invitation_id: row.id, email: row.email, role: row.role },
      after: { reason: role === null ? "its sender was removed" : `its sender is now ${role}` },
    }, now);
  }
  return withdrawn;
}

/** What the /invite page shows about a waiting invitation. */
export interface InvitationPreview {
  email: string;
  role: AccountRole;
  accountName: string;
  invitedBy: string;
  expiresAt: Date;
  /** Whether the address already has a login (sign in and accept) or not (register). */
  hasLogin: boolean;
}

async function waitingInvitation(db: Database, token: string, now: Date): Promise<InvitationRow | null> {
  const trimmed = token.trim();
  if (!trimmed || trimmed.length > 200) return null;
  const [row] = await db.select().from(accountInvitations)
    .where(and(eq(accountInvitations.tokenHash, await hashOf(trimmed)), pending(now)));
  return row ?? null;
}

/** The invitation a link's token opens, or null when it was used, withdrawn, expired or never existed. */
export async function previewInvitation(db: Database, token: string, now: Date): Promise<InvitationPreview | null> {
  const row = await waitingInvitation(db, token, now);
  if (!row) return null;
  const [account] = await db.select({ name: accounts.name }).from(accounts).where(eq(accounts.id, row.accountId));
  return {
    email: row.email,
    role: row.role,
    accountName: account?.name ?? "",
    invitedBy: invitedByIn(await peopleByIds(db, [row.invitedBy, row.onBehalfAdminId]), row),
    expiresAt: row.expiresAt,
    hasLogin: !!(await findUserByUsername(db, row.email)),
  };
}

/**
 * Finds the waiting invitation of a token under a limit on failures, like every emailed secret
 * (decision 021: the attempt is claimed first; a right token forgets the key's failures).
 */
async function invitationFor(
  deps: { db: Database; limiter: RateLimiter },
  token: string,
  limitKey: string,
  now: Date,
): Promise<InvitationRow> {
  if (!(await deps.limiter.claim(limitKey, TOKEN_FAILURES))) throw new TooMany(TOO_MANY_ATTEMPTS);
  const row = await waitingInvitation(deps.db, token, now);
  if (!row) throw new NotFound(INVITATION_NOT_VALID);
  await deps.limiter.clear(limitKey);
  return row;
}

/**
 * Marks the invitation accepted by `userId` and adds them to its account with its role, in the
 * caller's transaction. Conditional on the invitation still waiting: of two acceptances at once,
 * one wins and the other is refused.
 */
async function join(
  tx: Parameters<Parameters<Database["transaction"]>[0]>[0],
  row: InvitationRow,
  userId: number,
  now: Date,
): Promise<void> {
  const taken = await tx.update(accountInvitations).set({ acceptedAt: now, acceptedBy: userId })
    .where(and(eq(accountInvitations.id, row.id), pending(now))).returning({ id: accountInvitations.id });
  if (taken.length !== 1) throw new NotFound(INVITATION_NOT_VALID);
  await tx.insert(accountMembers).values({ accountId: row.accountId, userId, role: row.role, createdAt: now });
  // Funded is "a member of an account ever credited by a receipt" (decision 055).
  await markFundedOnJoining(tx, userId, row.accountId);
  await audit(tx, {
    actor: userId,
    subject: userId,
    account: row.accountId,
    action: "account-users.join",
    before: null,
    after: { invitation_id: row.id, role: row.role },
  }, now);
}

/**
 * A signed-in person accepts an invitation sent to their own email address (an invitation is for
 * the address it was sent to: anyone else is refused and the invitation keeps waiting). Answers the
 * account joined.
 */
export async function acceptInvitation(
  deps: { db: Database; limiter: RateLimiter },
  user: { id: number; username: string },
  token: string,
  now: Date,
): Promise<number> {
  const row = await invitationFor(deps, token, `invite:user:${user.id}`, now);
  if (row.email !== user.username.toLowerCase()) {
    throw new Refused(
      `This invitation was sent to another email address. Sign in as the person it was sent to, then open the link again.`,
    );
  }
  const [already] = await deps.db.select({ role: accountMembers.role }).from(accountMembers)
    .where(and(eq(accountMembers.accountId, row.accountId), eq(accountMembers.userId, user.id)));
  if (already) throw new Conflict("You are already a user of this account.");
  await deps.db.transaction((tx) => join(tx, row, user.id, now));
  return row.accountId;
}

/**
 * Why registering through an invitation is refused to someone signed in (decision 082): the new
 * login would be another person's, made in their browser; they sign out first.
 */
export const signedInAlready = (username: string) =>
  `You are signed in as ${username}. To create the invited person's login, sign out first, then open the invitation's link again.`;

export interface RegistrationDeps {
  db: Database;
  mailer: Mailer;
  limiter: RateLimiter;
  verifications: Verifications;
}

/**
 * A new person registers through an invitation: a login for the invited address, validated (the
 * emailed link proves the address), a Personal customer who has joined the account with the
 * invited role. They still pass the second factor (a code is emailed now), save a profile and pass
 * the identity check before they can act: the guards require it as of everyone. At most
 * REGISTRATIONS_PER_ADDRESS from one address, counted with ordinary registrations.
 */
export async function registerThroughInvitation(
  deps: RegistrationDeps,
  input: { token: string; password: string },
  address: string,
  now: Date,
): Promise<{ user: UserRow; accountId: number }> {
  await spendWithinLimit(
    deps.limiter,
    `register:address:${address}`,
    REGISTRATIONS_PER_ADDRESS,
    "Too many registrations from here. Try again later.",
  );
  const row = await invitationFor(deps, input.token, `invite:address:${address}`, now);
  if (await findUserByUsername(deps.db, row.email)) {
    throw new Conflict("You already have a Portal login with this email address: sign in to accept the invitation.");
  }
  const passwordHash = await hashPassword(input.password);
  const user = await deps.db.transaction(async (tx) => {
    const [created] = await tx.insert(users).values({
      username: row.email,
      passwordHash,
      type: "Personal",
      validated: true,
      createdAt: now,
    }).onConflictDoNothing().returning();
    if (!created) {
      throw new Conflict("You already have a Portal login with this email address: sign in to accept the invitation.");
    }
    await join(tx, row, created.id, now);
    return created;
  });
  const code = await deps.verifications.issue(user.id, "second-factor");
  await deps.mailer.send({
    to: user.username,
    userId: user.id,
    template: "second-factor-code",
    rendered: secondFactorCode({ code }),
  });
  return { user, accountId: row.accountId };
}
