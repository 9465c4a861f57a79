import { displayName } from "../auth/session-user.ts";

/**
 * A customer's name, one rule for every screen and mail that names them (decision 065): their
 * profile's (a business's name, or a person's first and last), else, for a migrated customer who
 * has saved no profile yet, the names their migration line gave (company_name, or first_name and
 * last_name; decision 049), else their address. The customers search reads the same (db/derived.ts
 * NAME), so a customer is listed and addressed by the name they are found by.
 */

/** What a profile holds of a name. */
export type ProfileNames = { name?: string; first?: string; last?: string } | null;

/** What a migration line holds of a name (migration_rows.data). */
export type MigrationNames = { type?: string; company_name?: string; first_name?: string; last_name?: string } | null;

/** The data of the customer's latest migration line, `user` being the SQL alias of users' id. */
export const migrationLineOf = (user: string) =>
  `(SELECT mr.data FROM migration_rows mr WHERE mr.user_id = ${user} ORDER BY mr.id DESC LIMIT 1)`;

/** A migration line's data as the database answers it (JSON text, or already read). */
export function migrationNames(data: unknown): MigrationNames {
  if (!data) return null;
  if (typeof data === "object") return data as MigrationNames;
  try {
    return JSON.parse(String(data)) as MigrationNames;
  } catch {
    return null;
  }
}

/** The name of a migration line, or "" when it gives none. */
function migrationName(line: MigrationNames): string {
  if (!line) return "";
  if (line.type === "Business") return line.company_name?.trim() ?? "";
  return [line.first_name?.trim(), line.last_name?.trim()].filter(Boolean).join(" ");
}

/** The customer's name: their profile's, else their migration line's, else `fallback` (their address). */
export function customerName(
  type: "Personal" | "Business",
  profile: ProfileNames,
  migrated: MigrationNames,
  fallback: string,
): string {
  return displayName(type, profile, "") || migrationName(migrated) || fallback;
}

/** A person's first name: their profile's, else their migration line's; "" when neither gives one. */
export function customerFirstName(profile: ProfileNames, migrated: MigrationNames): string {
  return profile?.first?.trim() || (migrated?.type === "Business" ? "" : migrated?.first_name?.trim() ?? "");
}
