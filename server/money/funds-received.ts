import type { Database } from "../../db/client.ts";
import { membersOf } from "../accounts/find.ts";
import { userWithSummary } from "../auth/users.ts";
import { fundsReceived, type Mailer, receiptReversed } from "../mail/index.ts";

/** Tells everyone on an account that money arrived on it ("We received 250.00 GBP"). */
export async function tellMembers(
  { db, mailer, publicUrl }: { db: Database; mailer: Mailer; publicUrl: string },
  accountId: number,
  money: { amount: string; currency: string },
): Promise<void> {
  for (const member of await membersOf(db, accountId)) {
    const found = await userWithSummary(db, member.userId, false);
    if (!found) continue;
    await mailer.send({
      to: found.user.username,
      userId: found.user.id,
      template: "funds-received",
      rendered: fundsReceived({
        name: found.summary.name,
        amount: `${money.amount} ${money.currency}`,
        accountRef: member.accountRef,
        link: `${publicUrl}/account/balances`,
      }),
    });
  }
}

/** Tells everyone on an account that a credit from money received was reversed. */
export async function tellMembersOfReversal(
  db: Database,
  mailer: Mailer,
  accountId: number,
  reversal: { amount: string; receivedAt: string; supportEmail: string },
): Promise<void> {
  for (const member of await membersOf(db, accountId)) {
    const found = await userWithSummary(db, member.userId, false);
    if (!found) continue;
    await mailer.send({
      to: found.user.username,
      userId: found.user.id,
      template: "receipt-reversed",
      rendered: receiptReversed({ ...reversal, accountRef: member.accountRef }),
    });
  }
}
