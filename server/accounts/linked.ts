import { eq } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { sessions } from "../../db/schema.ts";
import type { AccountRole } from "../../lib/permissions.ts";
import { NotFound } from "../errors.ts";
import { type Membership, membershipsOf } from "./current.ts";

/**
 * Linked accounts (decision 028): one login may belong to several accounts (a personal one and a
 * business one, say); each session acts on one of them, `sessions.current_account_id`.
 */

export interface LinkedAccount {
  account_ref: string;
  name: string;
  type: "Personal" | "Business";
  role: AccountRole;
  current: boolean;
}

export function linkedAnswer(m: Membership, current: Membership | null): LinkedAccount {
  return {
    account_ref: m.accountRef,
    name: m.name,
    type: m.type,
    role: m.role,
    current: m.accountId === current?.accountId,
  };
}

/** The customer's accounts, marking the one the session acts on. */
export async function linkedAccounts(
  db: Database,
  customerId: number,
  current: Membership | null,
): Promise<LinkedAccount[]> {
  return (await membershipsOf(db, customerId)).map((m) => linkedAnswer(m, current));
}

/**
 * Makes the session act on one of the customer's accounts. An account_ref the customer does not
 * belong to is "not found", the same as one that does not exist: nothing says it is someone else's.
 */
export async function selectAccount(
  db: Database,
  session: { id: string },
  customerId: number,
  accountRef: string,
): Promise<LinkedAccount> {
  const chosen = (await membershipsOf(db, customerId)).find((m) => m.accountRef === accountRef);
  if (!chosen) throw new NotFound("You have no account with this reference.");
  await db.update(sessions).set({ currentAccountId: chosen.accountId }).where(eq(sessions.id, session.id));
  return linkedAnswer(chosen, chosen);
}

/** Makes a new session act on an account (after joining one through an invitation). */
export async function actOn(db: Database, sessionId: string, accountId: number): Promise<void> {
  await db.update(sessions).set({ currentAccountId: accountId }).where(eq(sessions.id, sessionId));
}
