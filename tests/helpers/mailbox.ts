import { desc, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { emails } from "../../db/schema.ts";

/**
 * Reading mail "as the user would": every message is kept in the `emails` table (sent or not), so a
 * test finds the newest one for an address and takes the link or code out of its text part.
 */

export type EmailRow = typeof emails.$inferSelect;

/** The newest email to this address (compared without case), or undefined. */
export async function latestEmail(db: Database, to: string): Promise<EmailRow | undefined> {
  const [row] = await db.select().from(emails)
    .where(sql`lower(${emails.to}) = ${to.toLowerCase()}`)
    .orderBy(desc(emails.id))
    .limit(1);
  return row;
}

/** The first http(s) link in a text part, or undefined. */
export function linkIn(text: string): string | undefined {
  return /https?:\/\/\S+/.exec(text)?.[0];
}

/** The first standalone 6-digit code in a text part, or undefined. */
export function codeIn(text: string): string | undefined {
  return /\b\d{6}\b/.exec(text)?.[0];
}
