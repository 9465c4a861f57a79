import { and, asc, eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { accountMembers, users } from "../../db/schema.ts";
import { rateAlerts } from "../../db/schema-ratealerts.ts";
import { rowsOf, type Tx } from "../../db/sql.ts";
import { ACCOUNT_ROLES, type AccountRole, may } from "../../lib/permissions.ts";
import { audit } from "../audit.ts";
import { Conflict, NotFound, Refused } from "../errors.ts";
import { accountAccessChanged, type Mailer } from "../mail/index.ts";
import {
  approvalRuleFor,
  ruleInWords,
  ruleMakesPaymentsWait,
  someoneElseApproves,
  strandedPreparers,
  whoCanAct,
} from "../payments/approval-rules.ts";
import { peopleByIds } from "../payments/people.ts";
import { tellWithdrawn, withdrawInvitationsOf } from "./invitations.ts";
import { checkRoleChange, checkRoleGivenOnBehalf } from "./role-rules.ts";

/** The users of an account and their roles (DESIGN.md section 4; decision 028). */

export interface AccountUserDeps {
  db: Database;
  mailer: Mailer;
  /** SUPPORT_EMAIL, named in the email to the person changed or removed. */
  supportEmail: string;
}

/** The account a change is about. */
export interface AccountRefs {
  accountId: number;
  accountRef: string;
  accountName: string;
  accountType: "Personal" | "Business";
}

/**
 * Who makes a change: the customer (with their role on the account), and the administrator when
 * it is made on the customer's behalf (the audit log keeps both).
 */
export interface AccountActor {
  userId: number;
  name: string;
  role: AccountRole;
  onBehalfAdminId: number | null;
}

export interface AccountUser {
  id: number;
  email: string;
  name: string;
  role: AccountRole;
  joined_at: string;
  you: boolean;
}

const NO_SUCH_USER = "There is no such user on this account.";
const NOT_ALLOWED = "Your role on this account does not allow this.";

/** The account's users (or one of them), each named as peopleByIds names a person. */
async function memberRows(db: Database | Tx, accountId: number, userId?: number) {
  const rows = await db.select({
    id: users.id,
    username: users.username,
    role: accountMembers.role,
    joinedAt: accountMembers.createdAt,
  }).from(accountMembers)
    .innerJoin(users, eq(users.id, accountMembers.userId))
    .where(and(eq(accountMembers.accountId, accountId), userId === undefined ? undefined : eq(users.id, userId)))
    .orderBy(ROLE_ORDER, asc(accountMembers.createdAt), asc(users.id));
  const people = await peopleByIds(db, rows.map((r) => r.id));
  return rows.map((r) => ({ ...r, name: people.get(r.id)?.name ?? r.username }));
}

/** Owners first, then down the roles (lib/permissions.ts's order). */
const ROLE_ORDER = sql`CASE ${accountMembers.role} ${
  sql.raw(ACCOUNT_ROLES.map((role, i) => `WHEN '${role}' THEN ${i}`).join(" "))
} END`;

type MemberRow = Awaited<ReturnType<typeof memberRows>>[number];

/**
 * A user's name as peopleByIds gives it (a migrated person who has saved no profile yet by their
 * migration line's names); "Someone" for a user that is gone. Every payment call names who acts
 * with it (routes/payment-actor.ts).
 */
export async function personNameOf(db: Database | Tx, userId: number): Promise<string> {
  return (await peopleByIds(db, [userId])).get(userId)?.name ?? "Someone";
}

const nameOf = (r: MemberRow) => r.name;

/**
 * Who did something done on the customer's behalf, in the words the customer's people read: the
 * member of our team, named as a payment's timeline names them ("… of our team"), and for whom. A
 * member of staff known by no name but their address (`personNameOf`'s last resort) is "A member":
 * an invitation goes to people outside, and a staff address in it would invite phishing.
 */
export const onBehalfWords = (staff: string, customer: string) =>
  `${staff.includes("@") ? "A member" : staff} of our team (on behalf of ${customer})`;

/**
 * Who a change is credited to in the emails and lists the account's people read: the customer
 * who made it, or our team when an administrator acted on their behalf (the audit log names both).
 */
export async function actedByWords(
  db: Database | Tx,
  actor: Pick<AccountActor, "name" | "onBehalfAdminId">,
): Promise<string> {
  if (actor.onBehalfAdminId === null) return actor.name;
  return onBehalfWords(await personNameOf(db, actor.onBehalfAdminId), actor.name);
}

function userAnswer(r: MemberRow, viewerId: number): AccountUser {
  return {
    id: r.id,
    email: r.username,
    name: nameOf(r),
    role: r.role,
    joined_at: r.joinedAt.toISOString(),
    you: r.id === viewerId,
  };
}

/** The account's users: owners first, then by role, each role in the order they joined. */
export async function listAccountUsers(db: Database, accountId: number, viewerId: number): Promise<AccountUser[]> {
  return (await memberRows(db, accountId)).map((r) => userAnswer(r, viewerId));
}

/**
 * The rules of checkRoleChange, read again inside the transaction that makes the change: the
 * actor's own role as it is now (a concurrent change may have taken their rights), the target's,
 * and how many owners there are. Writes take turns (decision 006), so nothing changes in between.
 */
async function checkedInTransaction(
  tx: Tx,
  account: AccountRefs,
  actor: AccountActor,
  targetId: number,
  to: AccountRole | null,
): Promise<MemberRow> {
  const rows = await memberRows(tx, account.accountId);
  const actorNow = rows.find((r) => r.id === actor.userId);
  if (!actorNow || !may(actorNow.role, "users.manage")) throw new Refused(NOT_ALLOWED);
  const target = rows.find((r) => r.id === targetId);
  if (!target) throw new NotFound(NO_SUCH_USER);
  checkRoleChange({
    actor: { userId: actor.userId, role: actorNow.role },
    target: { userId: target.id, role: target.role },
    to,
    owners: rows.filter((r) => r.role === "owner").length,
  });
  await assertApproversRemain(tx, account.accountId, rows, targetId, to);
  return target;
}

/**
 * While the approval rule makes payments wait, a change that would leave someone who prepares
 * payments with nobody else to approve them is refused, as saving such a rule is
 * (server/payments/approval-rules.ts): their payments would wait for ever. So is a change that
 * would leave a payment already waiting for approval with nobody but its preparer who could approve
 * it, whatever the rule says now (relaxing the rule does not release what already waits, and its
 * money stays held). Read in the change's transaction, so two changes at once cannot each leave the
 * other's approver as the last.
 */
async function assertApproversRemain(
  tx: Tx,
  accountId: number,
  rows: MemberRow[],
  targetId: number,
  to: AccountRole | null,
): Promise<void> {
  const rule = await approvalRuleFor(tx, accountId);
  const waiting = await rowsOf<{ created_by: number }>(
    tx,
    "SELECT DISTINCT created_by FROM payments WHERE account_id = ? AND status = 'pending_approval'",
    [accountId],
  );
  if (!ruleMakesPaymentsWait(rule) && !waiting.length) return;
  const asMembers = (list: MemberRow[]) => list.map((r) => ({ user_id: r.id, role: r.role, row: r }));
  // Only someone who can act now approves anything: an approver still signing up does not count.
  const canAct = await whoCanAct(tx, rows.map((r) => r.id));
  const after = rows.filter((r) => r.id !== targetId || to !== null).map((r) =>
    r.id === targetId && to ? { ...r, role: to } : r
  );
  if (ruleMakesPaymentsWait(rule)) {
    const before = new Set(strandedPreparers(asMembers(rows), canAct).map((m) => m.user_id));
    const stranded = strandedPreparers(asMembers(after), canAct).filter((m) => !before.has(m.user_id));
    if (stranded.length) {
      const names = stranded.map((m) => nameOf(m.row)).join(", ");
      throw new Conflict(
        `The approval rule says ${ruleInWords(rule)}, so ${names} needs someone else on this account to approve ` +
          `their payments, and after this change nobody could. Make someone else an approver first, or change the rule.`,
      );
    }
  }
  const unapprovable = (list: MemberRow[]) =>
    waiting.filter((w) => !someoneElseApproves(asMembers(list), w.created_by, canAct)).map((w) => w.created_by);
  const already = new Set(unapprovable(rows));
  if (unapprovable(after).some((creator) => !already.has(creator))) {
    throw new Conflict(
      "Payments are waiting for approval, and after this change nobody but the person who prepared them could " +
        "approve them. Approve or reject them first (Pending payments), or make someone else an approver.",
    );
  }
}

/** Changes a user's role; the person is emailed and the change audited. */
export async function changeRole(
  deps: AccountUserDeps,
  account: AccountRefs,
  actor: AccountActor,
  targetId: number,
  role: AccountRole,
  now: Date,
): Promise<AccountUser> {
  checkRoleGivenOnBehalf(actor, role);
  const target = await deps.db.transaction(async (tx) => {
    const target = await checkedInTransaction(tx, account, actor, targetId, role);
    if (target.role === role) return null;
    await tx.update(accountMembers).set({ role }).where(
      and(eq(accountMembers.accountId, account.accountId), eq(accountMembers.userId, targetId)),
    );
    const withdrawn = await withdrawInvitationsOf(tx, account, actor, targetId, role, now);
    await audit(tx, {
      actor: actor.onBehalfAdminId ?? actor.userId,
      subject: actor.onBehalfAdminId ? actor.userId : null,
      account: account.accountId,
      action: "account-users.role",
      before: { user_id: targetId, email: target.username, role: target.role },
      after: { user_id: targetId, email: target.username, role },
    }, now);
    return { ...target, withdrawn };
  });
  if (target) {
    await tellWithdrawn(deps, account, actor, target.withdrawn);
    await deps.mailer.send({
      to: target.username,
      userId: target.id,
      template: "account-access-changed",
      rendered: accountAccessChanged({
        name: nameOf(target),
        accountName: account.accountName,
        changedBy: await actedByWords(deps.db, actor),
        supportEmail: deps.supportEmail,
        role,
      }),
    });
  }
  const [row] = await memberRows(deps.db, account.accountId, targetId);
  if (!row) throw new NotFound(NO_SUCH_USER);
  return userAnswer(row, actor.userId);
}

/** Removes a user from the account; the person is emailed and the removal audited. */
export async function removeAccountUser(
  deps: AccountUserDeps,
  account: AccountRefs,
  actor: AccountActor,
  targetId: number,
  now: Date,
): Promise<void> {
  const target = await deps.db.transaction(async (tx) => {
    const target = await checkedInTransaction(tx, account, actor, targetId, null);
    await tx.delete(accountMembers).where(
      and(eq(accountMembers.accountId, account.accountId), eq(accountMembers.userId, targetId)),
    );
    const withdrawn = await withdrawInvitationsOf(tx, account, actor, targetId, null, now);
    // Their rate alerts on the account go with them (decision 076): each watched a target for
    // them ("your target"), which nobody left on the account set. The audit entry keeps what they were.
    const alerts = await tx.delete(rateAlerts).where(
      and(eq(rateAlerts.accountId, account.accountId), eq(rateAlerts.createdBy, targetId)),
    ).returning({
      id: rateAlerts.id,
      sell_currency: rateAlerts.sellCurrency,
      buy_currency: rateAlerts.buyCurrency,
      target_rate: rateAlerts.targetRate,
      direction: rateAlerts.direction,
    });
    await audit(tx, {
      actor: actor.onBehalfAdminId ?? actor.userId,
      subject: actor.onBehalfAdminId ? actor.userId : null,
      account: account.accountId,
      action: "account-users.remove",
      before: {
        user_id: targetId,
        email: target.username,
        role: target.role,
        ...(alerts.length ? { rate_alerts: alerts } : {}),
      },
      after: null,
    }, now);
    return { ...target, withdrawn };
  });
  await tellWithdrawn(deps, account, actor, target.withdrawn);
  await deps.mailer.send({
    to: target.username,
    userId: target.id,
    template: "account-access-changed",
    rendered: accountAccessChanged({
      name: nameOf(target),
      accountName: account.accountName,
      changedBy: await actedByWords(deps.db, actor),
      supportEmail: deps.supportEmail,
      role: null,
    }),
  });
}
