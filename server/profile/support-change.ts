import { and, desc, eq } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { accounts, auditLog, profiles, users } from "../../db/schema.ts";
import type { Tx } from "../../db/sql.ts";
import { ownAccountOf } from "../accounts/open.ts";
import { displayName } from "../auth/session-user.ts";
import { PROFILE_FIELDS, profileFieldLabel } from "../../lib/profile-edit.ts";
import { audit } from "../audit.ts";
import { Conflict, InvalidFields, InvalidInput, NotFound } from "../errors.ts";
import { type Mailer, profileChanged } from "../mail/index.ts";
import { sessionSummary } from "../auth/users.ts";
import { isRecord, validateProfile, validateProfileChanges } from "./schema.ts";
import { REASON } from "../../lib/contracts/console-profile.ts";
import { peopleByIds, personOr } from "../payments/people.ts";

/**
 * Support changes a customer's saved profile (decision 078): the details the identity check and the
 * compliance review saw are locked for the customer (decision 071), so an administrator changes
 * them on /console/users/{id}, with a reason kept in the audit log, and the customer is emailed
 * which of their details changed.
 */

/** A value with its objects' keys in order: an address saved with its parts in another order is the same address. */
const ordered = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(ordered)
    : isRecord(v)
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, ordered(v[k])]))
    : v ?? null;
const same = (a: unknown, b: unknown) => JSON.stringify(ordered(a)) === JSON.stringify(ordered(b));

/** A profile's problems by field, named as the request sends them: under `changes`. */
const underChanges = (fields: Record<string, string>) =>
  Object.fromEntries(Object.entries(fields).map(([path, message]) => [`changes.${path}`, message]));

export const NOTHING_TO_CHANGE = "Nothing to change: every value given is the one already saved.";

export interface ProfileChange {
  /** The fields changed, by their key in the profile, in the form's order. */
  changed: string[];
  updated_at: string;
}

/**
 * Changes the fields of `changes` on the customer's saved profile, checked by the rules of the
 * customer's own save (server/profile/schema.ts) on the profile as it would be, so that support
 * cannot save what the customer could not: a 422 names each failing field (`changes.address.postcode`)
 * and changes nothing. Only the fields given are written (an unchanged field keeps its saved value,
 * even one saved under older rules), and of those only the ones whose value differs; answering
 * "No" to acting for someone clears whom they act for, as the customer's save does. One
 * transaction with its audit entry (`customer.profile`: each changed field before and after, and
 * the reason); then the customer is emailed the names of what changed.
 */
export async function changeProfileBySupport(
  deps: { db: Database; mailer: Mailer; supportEmail: string },
  request: { customerId: number; adminId: number; changes: Record<string, unknown>; reason?: string },
  now: Date,
): Promise<ProfileChange> {
  const { db } = deps;
  const [customer] = await db.select({ id: users.id, level: users.level, username: users.username, type: users.type })
    .from(users).where(eq(users.id, request.customerId));
  if (!customer || customer.level === "Admin") throw new NotFound("There is no customer with this id.");
  // One refusal names every problem: each field given by its own rule, and a missing reason.
  const noReason: Record<string, string> = request.reason ? {} : { reason: REASON };
  const given = validateProfileChanges(customer.type, request.changes, now);
  if (given) throw new InvalidFields(given.error, { ...underChanges(given.fields), ...noReason });

  const changed = await db.transaction(async (tx) => {
    const [row] = await tx.select({ type: profiles.type, data: profiles.data }).from(profiles)
      .where(eq(profiles.userId, customer.id));
    if (!row) {
      throw new Conflict(
        "The customer has not saved a profile yet: there is nothing to change. They save their own first.",
      );
    }
    const saved = isRecord(row.data) ? row.data : {};
    const keys = new Set(PROFILE_FIELDS[row.type].map((field) => field.key));
    const unknown = Object.keys(request.changes).filter((key) => !keys.has(key));
    if (unknown.length) {
      throw new InvalidFields(
        `There is no field ${unknown[0]} on a ${row.type} profile.`,
        Object.fromEntries(
          unknown.map((key) => [`changes.${key}`, `There is no field ${key} on a ${row.type} profile.`]),
        ),
      );
    }
    const checked = validateProfile(row.type, { ...saved, ...request.changes }, now);
    if (!checked.ok) throw new InvalidFields(checked.error, { ...underChanges(checked.fields), ...noReason });
    if (!request.reason) throw new InvalidFields(REASON, noReason);
    const valid = checked.profile as Record<string, unknown>;
    // The fields given, and whom they act for when the answer to acting for someone was given (the
    // customer's rules clear it on a "No").
    const touched = (key: string) => key in request.changes || (key === "agency_of" && "agency" in request.changes);
    const changed = PROFILE_FIELDS[row.type].map((field) => field.key)
      .filter((key) => touched(key) && !same(valid[key], saved[key]));
    if (!changed.length) throw new InvalidInput(NOTHING_TO_CHANGE, "changes");
    const data = { ...saved, ...Object.fromEntries(changed.map((key) => [key, valid[key]])) };
    await tx.update(profiles).set({ data, updatedAt: now }).where(eq(profiles.userId, customer.id));
    // The account opened for them bears their name (server/accounts/open.ts): a new name is its
    // name too, on statements, the header and the console, as the rest of the record.
    const renamed = await renameOwnAccount(tx, customer, row.type, saved, data);
    await audit(tx, {
      actor: request.adminId,
      subject: customer.id,
      action: "customer.profile",
      before: { ...Object.fromEntries(changed.map((key) => [key, saved[key] ?? null])), ...renamed.before },
      after: {
        ...Object.fromEntries(changed.map((key) => [key, valid[key]])),
        ...renamed.after,
        reason: request.reason,
      },
    }, now);
    return { changed, type: row.type };
  });

  const summary = await sessionSummary(db, customer.id, false);
  await deps.mailer.send({
    to: customer.username,
    userId: customer.id,
    template: "profile-changed",
    rendered: profileChanged({
      name: summary.name,
      fields: changed.changed.map((key) => profileFieldLabel(changed.type, key)),
      supportEmail: deps.supportEmail,
    }),
  });
  return { changed: changed.changed, updated_at: now.toISOString() };
}

/**
 * Gives the customer's own account (the one opened for them) the name their changed profile gives
 * them, when it changed; what it was and is, for the audit entry.
 */
async function renameOwnAccount(
  tx: Tx,
  customer: { id: number; username: string },
  type: "Personal" | "Business",
  saved: Record<string, unknown>,
  data: Record<string, unknown>,
): Promise<{ before: { account_name?: string }; after: { account_name?: string } }> {
  const named = (profile: Record<string, unknown>) =>
    displayName(type, profile as { name?: string; first?: string; last?: string }, customer.username);
  const name = named(data);
  const own = name === named(saved) ? undefined : await ownAccountOf(tx, customer.id);
  if (!own) return { before: {}, after: {} };
  const [current] = await tx.select({ name: accounts.name }).from(accounts).where(eq(accounts.id, own.id));
  if (!current || current.name === name) return { before: {}, after: {} };
  await tx.update(accounts).set({ name }).where(eq(accounts.id, own.id));
  return { before: { account_name: current.name }, after: { account_name: name } };
}

/**
 * Who changed the saved profile last, when that was support (the latest `customer.profile` entry,
 * written with the profile's own time): the Profile card says "as last changed by … on …". Null
 * when the customer's own save is the latest.
 */
export async function lastSupportChange(
  db: Database,
  customerId: number,
  updatedAt: Date,
): Promise<{ by: string; at: Date } | null> {
  const [latest] = await db.select({ at: auditLog.at, actorId: auditLog.actorId }).from(auditLog)
    .where(and(eq(auditLog.subjectId, customerId), eq(auditLog.action, "customer.profile")))
    .orderBy(desc(auditLog.id)).limit(1);
  if (!latest || latest.at.getTime() !== updatedAt.getTime()) return null;
  // Named as the console names its administrators: by their name where they have one (peopleByIds).
  const by = personOr(await peopleByIds(db, [latest.actorId]), latest.actorId).name;
  return { by, at: latest.at };
}
