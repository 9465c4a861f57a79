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
 * The last active administrator cannot be disabled, and nobody disables themselves.
 */

export type Administrator = z.output<typeof administratorRow>;

export const NO_SUCH_ADMINISTRATOR = "There is no administrator with this id.";
export const LAST_ACTIVE_ADMINISTRATOR =
  "The last active administrator cannot be disabled: invite another and let them sign in first.";
export const NOT_YOURSELF = "You cannot disable yourself: ask another administrator to do it.";
export const ALREADY_ADMINISTRATOR = "This person is already an administrator.";
export const CUSTOMER_EMAIL = "A customer signs in with this email; an administrator needs an address of their own.";
export const DISABLED_ADMINISTRATOR = "This administrator is disabled; a disabled administrator is not invited again.";

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

/** Active: has a password and is not disabled. Invited: no password yet. */
function statusOf(row: { disabledAt: Date | null; hasPassword: boolean }): Administrator["status"] {
  if (row.disabledAt) return "disabled";
  return row.hasPassword ? "active" : "invited";
}

/** Every administrator, the first one first. */
export async function listAdministrators(db: Database | Tx, only?: number): Promise<Administrator[]> {
  const rows = await db.select({
    id: users.id,
    email: users.username,
    name: administrators.name,
    hasPassword: sql<number>`${users.passwordHash} IS NOT NULL`,
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
    status: statusOf({ disabledAt: row.disabledAt, hasPassword: !!row.hasPassword }),
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

/**
 * Invites an administrator: a user of level Admin without a password, and an emailed link (valid
 * 72 hours, single use) to choose one on /forgot. Inviting someone invited and not yet in sends a
 * new link (the old one stops working), for the link that expired or was lost.
 */
export async function inviteAdministrator(
  deps: Pick<SignInDeps, "db" | "verifications" | "mailer" | "publicUrl">,
  input: { email: string; name: string },
  by: number,
  now: Date,
): Promise<Administrator> {
  const username = normalizeUsername(input.email);
  const id = await deps.db.transaction(async (tx) => {
    const [existing] = await tx.select({
      id: users.id,
      level: users.level,
      passwordHash: users.passwordHash,
      disabledAt: administrators.disabledAt,
    }).from(users).leftJoin(administrators, eq(administrators.userId, users.id)).where(eq(users.username, username));
    if (existing && existing.level !== "Admin") throw new Conflict(CUSTOMER_EMAIL);
    if (existing?.disabledAt) throw new Conflict(DISABLED_ADMINISTRATOR);
    if (existing?.passwordHash) throw new Conflict(ALREADY_ADMINISTRATOR);
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
    await audit(tx, {
      actor: by,
      subject: id,
      action: "admin.invite",
      before: existing ? { email: username, status: "invited" } : null,
      after: { email: username, name: input.name, status: "invited" },
    }, now);
    return id;
    // IMMEDIATE: the check for an existing user and the insert are one step, as in createAdministrator.
  }, { behavior: "immediate" });

  const secret = await deps.verifications.issue(id, "admin-invitation");
  const [who] = await deps.db.select({ email: users.username, name: administrators.name }).from(users)
    .leftJoin(administrators, eq(administrators.userId, users.id)).where(eq(users.id, by));
  await deps.mailer.send({
    to: username,
    userId: id,
    template: "administrator-invitation",
    rendered: administratorInvitation({
      invitedBy: who?.name || who?.email || "An administrator",
      link: `${deps.publicUrl}/forgot?token=${encodeURIComponent(secret)}&username=${
        encodeURIComponent(username)
      }&invited=1`,
      expiresAt: new Date(now.getTime() + VALID_FOR_MS["admin-invitation"]),
    }),
  });
  return await oneAdministrator(deps.db, id);
}

/**
 * Disables an administrator: every session of theirs ends in the same transaction, an unused
 * invitation stops working, and sign-in refuses them from then on. Checked in one IMMEDIATE
 * transaction so that two administrators disabling each other at once leave one active. Disabling
 * someone disabled already changes nothing and answers the same.
 */
export async function disableAdministrator(db: Database, id: number, by: number, now: Date): Promise<Administrator> {
  await db.transaction(async (tx) => {
    const [target] = await tx.select({
      id: users.id,
      passwordHash: users.passwordHash,
      disabledAt: administrators.disabledAt,
    }).from(users).leftJoin(administrators, eq(administrators.userId, users.id))
      .where(and(eq(users.id, id), eq(users.level, "Admin")));
    if (!target) throw new NotFound(NO_SUCH_ADMINISTRATOR);
    if (target.disabledAt) return;
    const [others] = await tx.select({ n: sql<number>`count(*)` }).from(users)
      .leftJoin(administrators, eq(administrators.userId, users.id))
      .where(and(
        eq(users.level, "Admin"),
        ne(users.id, id),
        isNotNull(users.passwordHash),
        isNull(administrators.disabledAt),
      ));
    // The last rule first: a lone administrator disabling themselves hears why it cannot be.
    if (target.passwordHash && others.n === 0) throw new Conflict(LAST_ACTIVE_ADMINISTRATOR);
    if (id === by) throw new Conflict(NOT_YOURSELF);
    const status = target.passwordHash ? "active" : "invited";
    await tx.insert(administrators).values({ userId: id, disabledAt: now, disabledBy: by })
      .onConflictDoUpdate({ target: administrators.userId, set: { disabledAt: now, disabledBy: by } });
    await tx.delete(sessions).where(eq(sessions.userId, id));
    await tx.update(verifications).set({ usedAt: now }).where(
      and(eq(verifications.userId, id), isNull(verifications.usedAt)),
    );
    await audit(tx, {
      actor: by,
      subject: id,
      action: "admin.disable",
      before: { status },
      after: { status: "disabled" },
    }, now);
  }, { behavior: "immediate" });
  return await oneAdministrator(db, id);
}
