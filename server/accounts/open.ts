import { and, asc, eq, notExists } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { accountInvitations } from "../../db/schema-payments.ts";
import { accountMembers, accounts } from "../../db/schema.ts";
import { isTransaction, type Tx } from "../../db/sql.ts";
import { newAccountRef } from "./account-ref.ts";

export interface OpenedAccount {
  id: number;
  accountRef: string;
}

/**
 * The account opened for the customer themselves, if any: one they belong to other than through an
 * accepted invitation (an invitee of someone else's account still has none of their own, and may
 * still be waiting for it: decision 028).
 */
export async function ownAccountOf(db: Database | Tx, userId: number): Promise<OpenedAccount | undefined> {
  const [own] = await db.select({ id: accounts.id, accountRef: accounts.accountRef })
    .from(accountMembers).innerJoin(accounts, eq(accounts.id, accountMembers.accountId))
    .where(and(
      eq(accountMembers.userId, userId),
      notExists(
        db.select({ id: accountInvitations.id }).from(accountInvitations).where(and(
          eq(accountInvitations.accountId, accountMembers.accountId),
          eq(accountInvitations.acceptedBy, userId),
        )),
      ),
    )).orderBy(asc(accounts.id)).limit(1);
  return own;
}

/**
 * Opens an account for a customer, who becomes its owner. Opening twice does nothing new: the
 * customer's own existing account is answered.
 */
export async function openAccount(
  db: Database | Tx,
  customer: { id: number; type: "Personal" | "Business"; name: string },
  openedBy: number | null,
  now = new Date(),
): Promise<{ account: OpenedAccount; created: boolean }> {
  // Inside the caller's transaction (a compliance review with its audit entry), as part of it.
  const inOne = <T>(work: (tx: Tx) => Promise<T>) => isTransaction(db) ? work(db) : db.transaction(work);
  return await inOne(async (tx) => {
    const existing = await ownAccountOf(tx, customer.id);
    if (existing) return { account: existing, created: false };
    for (let attempt = 0;; attempt++) {
      const accountRef = newAccountRef(customer.type);
      const [clash] = await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.accountRef, accountRef));
      if (clash) {
        if (attempt > 20) throw new Error("Could not find a free account_ref");
        continue;
      }
      const [account] = await tx.insert(accounts).values({
        accountRef,
        type: customer.type,
        name: customer.name,
        openedAt: now,
        openedBy,
      }).returning({ id: accounts.id, accountRef: accounts.accountRef });
      await tx.insert(accountMembers).values({
        accountId: account.id,
        userId: customer.id,
        role: "owner",
        createdAt: now,
      });
      return { account, created: true };
    }
  });
}
