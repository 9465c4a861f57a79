import { alertComplianceReview } from "../alerts/triggers.ts";
import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import type { Tx } from "../../db/sql.ts";
import { accountMembers, profiles, users } from "../../db/schema.ts";
import { consoleAlerts } from "../../db/schema-console.ts";
import { summaryOf } from "../auth/users.ts";
import { accountOpened, type Mailer } from "../mail/index.ts";
import { type PersonalProfile, personalProfileFlags } from "../profile/schema.ts";
import { openAccount, type OpenedAccount } from "./open.ts";
import type { IdentityMismatch } from "../../lib/compliance.ts";

/** Why an approved identity check still waits for the review (decision 085), with what the document said. */
export interface DocumentMismatch {
  reason: IdentityMismatch;
  document: { name: string; dob: string } | null;
}

/** What opening a customer's account works with. */
export interface AccountDeps {
  db: Database;
  mailer: Mailer;
  /** PUBLIC_URL: the account-opened email links to the account's page. */
  publicUrl: string;
}

/**
 * DESIGN.md section 3, step 6: a Personal customer whose identity is approved and whose answers
 * raise no flag (politically exposed, refused before, acting for someone else) gets an account at
 * once; Business customers and flagged persons wait for an administrator's compliance review. Only
 * a customer who belongs to no account yet: someone who joined an account through an invitation
 * came to use that account, and gets no personal one of their own unasked (decision 028).
 * Once a compliance review was queued for the customer, only the console's approval opens their
 * account, whatever their profile says now (decision 071): the review is of what was declared then.
 */
export async function opensAtOnce(db: Database | Tx, userId: number): Promise<boolean> {
  const [user] = await db.select().from(users).where(eq(users.id, userId));
  const [profile] = await db.select().from(profiles).where(eq(profiles.userId, userId));
  if (!user || !profile || user.type !== "Personal" || profile.type !== "Personal") return false;
  // A rejected application opens only through a new review (server/accounts/compliance.ts).
  if (profile.rejectedAt) return false;
  if (await reviewQueued(db, userId, { openOnly: false })) return false;
  const [member] = await db.select({ accountId: accountMembers.accountId }).from(accountMembers)
    .where(eq(accountMembers.userId, userId)).limit(1);
  if (member) return false;
  return personalProfileFlags(profile.data as PersonalProfile).length === 0;
}

/** Opens the customer's account and tells them by email (with the account_ref to quote). */
export async function openAccountFor(
  deps: AccountDeps,
  userId: number,
  openedBy: number | null,
  now: Date,
): Promise<OpenedAccount> {
  const opened = await openAccountIn(deps.db, deps, userId, openedBy, now);
  await opened.tell();
  return opened;
}

/**
 * Opens the customer's account, inside the caller's transaction when given one; `tell` emails the
 * customer, to be called once that transaction has committed (only when the account is new).
 */
export async function openAccountIn(
  db: Database | Tx,
  { mailer, publicUrl }: Omit<AccountDeps, "db">,
  userId: number,
  openedBy: number | null,
  now: Date,
): Promise<OpenedAccount & { tell: () => Promise<void> }> {
  const [user] = await db.select().from(users).where(eq(users.id, userId));
  if (!user) throw new Error(`No user ${userId}`);
  const summary = await summaryOf(db as Database, user, false);
  const { account, created } = await openAccount(
    db,
    { id: user.id, type: user.type, name: summary.name },
    openedBy,
    now,
  );
  const tell = async () => {
    if (!created) return;
    await mailer.send({
      to: user.username,
      userId: user.id,
      template: "account-opened",
      rendered: accountOpened({ name: summary.name, accountRef: account.accountRef, link: `${publicUrl}/account` }),
    });
  };
  return { ...account, tell };
}

/** After an approved identity check: the account opens now when the customer needs no review. */
export async function openAtOnceIfEligible(deps: AccountDeps, userId: number, now: Date): Promise<void> {
  if (await opensAtOnce(deps.db, userId)) await openAccountFor(deps, userId, null, now);
  else await queueReviewIfWaiting(deps.db, userId, now);
}

/**
 * When the identity check approves someone who will wait for a review (Business, or flagged
 * answers), the review is queued there and then, on the profile as it is at the approval
 * (decision 071): from then on their account opens only by the console's approval, even if the
 * check were later reopened and the answers changed. Also called on sumsub/confirm, for a check
 * approved before this was so. A document that does not match the profile (`mismatch`, decision 085)
 * makes anyone wait who would otherwise open at once, and the review records why.
 */
export async function queueReviewIfWaiting(
  db: Database | Tx,
  userId: number,
  now: Date,
  mismatch?: DocumentMismatch,
): Promise<void> {
  if (!mismatch && await opensAtOnce(db, userId)) return;
  if (await waitsForReview(db, userId)) await alertComplianceReview(db, userId, now, mismatch);
}

/**
 * Whether a compliance review was queued for the customer: its console alert (one per customer,
 * server/alerts/triggers.ts), still open, or at all with `openOnly: false`.
 */
export async function reviewQueued(
  db: Database | Tx,
  userId: number,
  { openOnly }: { openOnly: boolean },
): Promise<boolean> {
  const key = eq(consoleAlerts.dedupeKey, `compliance_review:${userId}`);
  const [row] = await db.select({ id: consoleAlerts.id }).from(consoleAlerts)
    .where(openOnly ? and(key, isNull(consoleAlerts.resolvedAt)) : key).limit(1);
  return row !== undefined;
}

/**
 * Whether the customer now waits for an administrator's compliance review: a profile, not
 * rejected, and no account yet (someone invited to an account waits for nothing).
 */
async function waitsForReview(db: Database | Tx, userId: number): Promise<boolean> {
  const [profile] = await db.select().from(profiles).where(eq(profiles.userId, userId));
  if (!profile || profile.rejectedAt) return false;
  const [member] = await db.select({ accountId: accountMembers.accountId }).from(accountMembers)
    .where(eq(accountMembers.userId, userId)).limit(1);
  return !member;
}
