/**
 * The recipients calls' service (issue 8, DESIGN.md section 4): list, read, add, change and delete
 * the recipients of an account. Bank details are checked by the server's rules before anything is
 * written (./bank-details.ts); every change is recorded in recipient_changes in the same
 * transaction as the change itself, with who made it and the administrator acting on their behalf.
 */
import { and, asc, count, desc, eq, isNull, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { Database } from "../../db/client.ts";
import { users } from "../../db/schema.ts";
import { recipientChanges, recipients } from "../../db/schema-payments.ts";
import { likeContaining, type Tx } from "../../db/sql.ts";
import type {
  RecipientAnswer,
  RecipientChange,
  RecipientPayload,
  RecipientValues,
} from "../../lib/contracts/recipients.ts";
import { type RequirementOptions, requirementsFor } from "../../lib/bank-details/requirements.ts";
import { InvalidInput, NotFound } from "../errors.ts";
import { peopleByIds } from "../payments/people.ts";
import { validateBankDetails } from "./bank-details.ts";
import { type ChangeableFields, changesBetween, type RecipientChangeRecord } from "./changes.ts";
import { NO_SUCH_RECIPIENT, type Recipient, recipientFor } from "./index.ts";

/** Who makes a change: the account's user, and the administrator when acting on their behalf. */
export interface RecipientActor {
  userId: number;
  onBehalfAdminId: number | null;
}

export const CURRENCY_CANNOT_CHANGE =
  "A recipient's currency cannot change: their bank details would no longer fit. Add a new recipient instead.";
export const COUNTRY_CANNOT_CHANGE =
  "The country of a recipient's bank cannot change: their bank details would no longer fit. Add a new recipient instead.";

const schemes = new Map<string, Pick<RecipientAnswer, "scheme" | "scheme_name">>();

/** The payout rail of a currency and bank country, or null when we no longer pay that pair. */
function schemeOf(currency: string, country: string): Pick<RecipientAnswer, "scheme" | "scheme_name"> {
  const key = `${currency}:${country}`;
  let scheme = schemes.get(key);
  if (!scheme) {
    const found = requirementsFor(currency, country);
    scheme = found.ok
      ? { scheme: found.requirement.scheme, scheme_name: found.requirement.scheme_name }
      : { scheme: null, scheme_name: null };
    schemes.set(key, scheme);
  }
  return scheme;
}

export function recipientAnswer(row: Recipient): RecipientAnswer {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    currency: row.currency,
    country: row.country,
    email: row.email,
    details: row.details,
    ...schemeOf(row.currency, row.country),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    details_changed_at: row.detailsChangedAt.toISOString(),
  };
}

/** Everything a recipient is, as a change record keeps it. */
const valuesOf = (row: Recipient): RecipientValues => ({
  name: row.name,
  type: row.type,
  currency: row.currency,
  country: row.country,
  email: row.email,
  details: row.details,
});

/** `%` and `_` typed in a search are letters, not wildcards. */

/** The account's recipients that are not deleted, by name, optionally those whose name contains `search`. */
export async function listRecipients(
  db: Database,
  accountId: number,
  query: { search?: string; page: number; per_page: number },
) {
  const where = and(
    eq(recipients.accountId, accountId),
    isNull(recipients.deletedAt),
    query.search ? sql`${recipients.name} LIKE ${likeContaining(query.search)} ESCAPE '\\'` : undefined,
  );
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(recipients).where(where)
      .orderBy(sql`${recipients.name} COLLATE NOCASE`, asc(recipients.id))
      .limit(query.per_page).offset((query.page - 1) * query.per_page),
    db.select({ total: count() }).from(recipients).where(where),
  ]);
  return { items: rows.map(recipientAnswer), page: query.page, per_page: query.per_page, total };
}

const admins = alias(users, "admins");

/** A recipient's changes, newest first, with who made them. */
async function historyOf(db: Database, recipientId: number): Promise<RecipientChange[]> {
  const rows = await db.select({ change: recipientChanges, username: users.username, admin: admins.username })
    .from(recipientChanges)
    .innerJoin(users, eq(users.id, recipientChanges.changedBy))
    .leftJoin(admins, eq(admins.id, recipientChanges.onBehalfAdminId))
    .where(eq(recipientChanges.recipientId, recipientId))
    .orderBy(desc(recipientChanges.id));
  // Named as a payment's timeline names who did something (server/accounts/person-name.ts).
  const people = await peopleByIds(db, rows.map((r) => r.change.changedBy));
  return rows.map(({ change, username, admin }) => ({
    id: change.id,
    kind: change.kind,
    at: change.changedAt.toISOString(),
    by: people.get(change.changedBy)?.name ?? username,
    on_behalf_by: admin,
    before: change.before as RecipientValues | null,
    after: change.after as RecipientValues | null,
  }));
}

/** One recipient of the account with its history, or NotFound. */
export async function recipientWithHistory(db: Database, accountId: number, id: number) {
  const row = await recipientFor(db, accountId, id);
  return { ...recipientAnswer(row), changes: await historyOf(db, row.id) };
}

async function record(
  tx: Tx,
  recipientId: number,
  actor: RecipientActor,
  changes: readonly RecipientChangeRecord[],
  now: Date,
) {
  if (changes.length === 0) return;
  await tx.insert(recipientChanges).values(changes.map((change) => ({
    recipientId,
    kind: change.kind,
    before: change.before,
    after: change.after,
    changedBy: actor.userId,
    onBehalfAdminId: actor.onBehalfAdminId,
    changedAt: now,
  })));
}

/** Saves a new recipient of the account, once the server's checks of its bank details pass. */
export async function addRecipient(
  db: Database,
  accountId: number,
  actor: RecipientActor,
  input: RecipientPayload,
  now: Date,
  requirements: RequirementOptions = {},
) {
  const details = validateBankDetails(input.currency, input.country, input.details, requirements);
  const id = await db.transaction(async (tx) => {
    const [row] = await tx.insert(recipients).values({
      accountId,
      name: input.name,
      type: input.type,
      currency: input.currency,
      country: input.country,
      email: input.email ?? null,
      details,
      detailsChangedAt: now,
      createdBy: actor.userId,
      createdAt: now,
      updatedAt: now,
    }).returning();
    await record(tx, row.id, actor, [{ kind: "created", before: null, after: valuesOf(row) }], now);
    return row.id;
  });
  return await recipientWithHistory(db, accountId, id);
}

/**
 * Changes a recipient's name, type, email or bank details, recording each kind of change; a change
 * of bank details moves `details_changed_at`. The currency and the bank's country cannot change.
 * Sending what is already saved changes nothing and records nothing.
 */
export async function changeRecipient(
  db: Database,
  accountId: number,
  actor: RecipientActor,
  id: number,
  input: RecipientPayload,
  now: Date,
  requirements: RequirementOptions = {},
) {
  await db.transaction(async (tx) => {
    const current = await recipientFor(tx, accountId, id);
    if (input.currency !== current.currency) throw new InvalidInput(CURRENCY_CANNOT_CHANGE, "currency");
    if (input.country !== current.country) throw new InvalidInput(COUNTRY_CANNOT_CHANGE, "country");
    const next: ChangeableFields = {
      name: input.name,
      type: input.type,
      email: input.email ?? null,
      details: validateBankDetails(current.currency, current.country, input.details, requirements),
    };
    const changes = changesBetween(current, next);
    if (changes.length === 0) return;
    const detailsChanged = changes.some((change) => change.kind === "details");
    const [updated] = await tx.update(recipients).set({
      ...next,
      updatedAt: now,
      ...(detailsChanged ? { detailsChangedAt: now } : {}),
    }).where(and(eq(recipients.id, current.id), isNull(recipients.deletedAt))).returning({ id: recipients.id });
    if (!updated) throw new NotFound(NO_SUCH_RECIPIENT);
    await record(tx, current.id, actor, changes, now);
  });
  return await recipientWithHistory(db, accountId, id);
}

/** Deletes a recipient: no longer listed or payable; payments made to it keep their snapshot. */
export async function deleteRecipient(db: Database, accountId: number, actor: RecipientActor, id: number, now: Date) {
  await db.transaction(async (tx) => {
    const current = await recipientFor(tx, accountId, id);
    const [deleted] = await tx.update(recipients).set({ deletedAt: now, updatedAt: now })
      .where(and(eq(recipients.id, current.id), isNull(recipients.deletedAt))).returning({ id: recipients.id });
    if (!deleted) throw new NotFound(NO_SUCH_RECIPIENT);
    await record(tx, current.id, actor, [{ kind: "deleted", before: valuesOf(current), after: null }], now);
  });
  return { id, deleted: true as const };
}
