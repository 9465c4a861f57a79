import { eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { accountMembers, accounts, profiles, users } from "../../db/schema.ts";
import type { Tx } from "../../db/sql.ts";
import {
  customerFirstName,
  customerName,
  migrationLineOf,
  type MigrationNames,
  migrationNames,
} from "../accounts/customer-name.ts";
import type { MergeValues } from "./template.tsx";

/** A customer's values for the merge fields (the unsubscribe link is the caller's). */
export interface Recipient {
  userId: number;
  email: string;
  type: "Personal" | "Business";
  profile: { name?: string; first?: string; last?: string } | null;
  /** Their migration line's names, for a migrated customer who has saved no profile yet. */
  migrated: MigrationNames;
  accountRef: string | null;
}

export function mergeValues(recipient: Recipient, unsubscribe: string): MergeValues {
  // The name the console lists and finds them by (decision 065).
  const name = customerName(recipient.type, recipient.profile, recipient.migrated, recipient.email);
  return {
    name,
    first_name: customerFirstName(recipient.profile, recipient.migrated) || name,
    email: recipient.email,
    account_ref: recipient.accountRef ?? "",
    unsubscribe_url: unsubscribe,
  };
}

/** The customers' merge data, by user id. */
export async function recipientsData(db: Database | Tx, userIds: number[]): Promise<Map<number, Recipient>> {
  if (userIds.length === 0) return new Map();
  const ownAccountRef = sql<string | null>`(SELECT ${accounts.accountRef} FROM ${accountMembers}
    INNER JOIN ${accounts} ON ${accounts.id} = ${accountMembers.accountId}
    WHERE ${accountMembers.userId} = ${users.id} ORDER BY ${accounts.id} LIMIT 1)`;
  const rows = await db.select({
    userId: users.id,
    email: users.username,
    type: users.type,
    profile: profiles.data,
    accountRef: ownAccountRef,
    migrated: sql<unknown>`${sql.raw(migrationLineOf(`"users"."id"`))}`,
  }).from(users).leftJoin(profiles, eq(profiles.userId, users.id)).where(inArray(users.id, userIds));
  return new Map(rows.map((row) => [row.userId, {
    ...row,
    profile: row.profile as Recipient["profile"],
    migrated: migrationNames(row.migrated),
  }]));
}
