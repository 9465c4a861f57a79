/**
 * The account's approval rule (maker-checker; decision 030): which payments need a second person's
 * approval before they can be sent.
 *
 * - mode "none": none, "all": every payment, "above": a payment whose total debited is at least the
 *   threshold of the currency it is paid from (a currency without a threshold never needs it).
 * - new_recipient (with any mode): the first payment to a recipient, and the first after its bank
 *   details changed, needs approval until one such payment has been approved (a payment still
 *   waiting does not count, so a second one to the same new details waits too).
 * - A rule that needs approval is refused while someone who may prepare payments would have nobody
 *   else on the account to approve them.
 */
import type { Database } from "../../db/client.ts";
import { rowOf, rowsOf, type Tx } from "../../db/sql.ts";
import { type AccountRole, may } from "../../lib/permissions.ts";
import { audit } from "../audit.ts";
import { RULE_NOT_ON_BEHALF } from "../../lib/payments/approval-notes.ts";
import { InvalidInput, Refused } from "../errors.ts";
import { formatAmount, parseAmount } from "../money/amounts.ts";
import { describe, isCurrency } from "../money/currencies.ts";
import { MoneyError } from "../money/errors.ts";
import { userWithSummary } from "../auth/users.ts";
import { canActOnAccount } from "../guards.ts";
import { peopleByIds } from "./people.ts";

export type ApprovalMode = "none" | "all" | "above";

export interface ApprovalRule {
  mode: ApprovalMode;
  /** Currency → minor units. */
  thresholds: Record<string, number>;
  newRecipient: boolean;
}

const NO_RULE: ApprovalRule = { mode: "none", thresholds: {}, newRecipient: false };

interface RuleRow {
  mode: ApprovalMode;
  thresholds: string;
  new_recipient: number;
  updated_by: number;
  updated_at: number;
}

// Read for every payment made: fixed SQL (db/sql.ts).
const RULE = "SELECT mode, thresholds, new_recipient, updated_by, updated_at FROM approval_rules WHERE account_id = ?";

async function ruleRow(executor: Database | Tx, accountId: number): Promise<RuleRow | undefined> {
  return await rowOf<RuleRow>(executor, RULE, [accountId]);
}

/** The account's rule; no row means no approval. */
export async function approvalRuleFor(executor: Database | Tx, accountId: number): Promise<ApprovalRule> {
  const row = await ruleRow(executor, accountId);
  if (!row) return NO_RULE;
  return { mode: row.mode, thresholds: JSON.parse(row.thresholds), newRecipient: row.new_recipient === 1 };
}

/** The rule's terms as the account's people set them: amounts as decimal strings. */
function termsOf(row: RuleRow) {
  const thresholds = JSON.parse(row.thresholds) as Record<string, number>;
  return {
    mode: row.mode,
    thresholds: Object.fromEntries(Object.entries(thresholds).map(([c, minor]) => [c, formatAmount(c, minor)])),
    new_recipient: row.new_recipient === 1,
  };
}

/** The rule as GET account/approvals answers it. */
export async function approvalRuleAnswer(db: Database, accountId: number) {
  const row = await ruleRow(db, accountId);
  if (!row) return { mode: "none" as const, thresholds: {}, new_recipient: false, updated_by: null, updated_at: null };
  const people = await peopleByIds(db, [row.updated_by]);
  return {
    ...termsOf(row),
    updated_by: people.get(row.updated_by) ?? null,
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/**
 * Whether a payment needs approval under the rule. `recipient` is asked only when the rule looks at
 * new recipients: whether a payment to its current bank details was approved before.
 */
export async function needsApproval(
  executor: Database | Tx,
  rule: ApprovalRule,
  payment: {
    sellCurrency: string;
    sellMinor: number;
    buyCurrency: string;
    buyMinor: number;
    recipientId: number;
    detailsChangedAt: number;
  },
): Promise<boolean> {
  if (rule.mode === "all") return true;
  if (rule.mode === "above") {
    // Either side: what is debited, or what the recipient gets. With a threshold in pounds only, a
    // payment of 1,739 GBP to a pound recipient must not escape it by being paid from euros.
    const sold = rule.thresholds[payment.sellCurrency];
    if (sold !== undefined && payment.sellMinor >= sold) return true;
    const bought = rule.thresholds[payment.buyCurrency];
    if (bought !== undefined && payment.buyMinor >= bought) return true;
  }
  if (!rule.newRecipient) return false;
  const paidBefore = await rowOf(
    executor,
    `SELECT 1 FROM payments WHERE recipient_id = ? AND created_at >= ?
       AND status IN ('approved', 'submitted', 'completed', 'failed') LIMIT 1`,
    [payment.recipientId, payment.detailsChangedAt],
  );
  return !paidBefore;
}

export interface RuleInput {
  mode: ApprovalMode;
  /** Currency → decimal amount. */
  thresholds: Record<string, string>;
  new_recipient: boolean;
}

/**
 * Validates and saves the account's rule; refused when nobody else could approve someone's payments.
 * Who set it (always the customer: an administrator on behalf may not) and the rule before and after
 * go in the audit log with it: the rule is the account's control over its money (decision 073).
 */
export async function setApprovalRule(
  db: Database,
  accountId: number,
  input: RuleInput,
  by: { userId: number; onBehalfAdminId: number | null },
  now: Date,
): Promise<void> {
  // Approving or rejecting on behalf is refused (decision 030); so is changing what needs approval.
  if (by.onBehalfAdminId !== null) throw new Refused(RULE_NOT_ON_BEHALF);
  const thresholds: Record<string, number> = {};
  for (const [code, amount] of Object.entries(input.thresholds)) {
    const field = `thresholds.${code}`;
    if (!isCurrency(code)) throw new InvalidInput(`${describe(code)} is not a currency we support.`, field);
    try {
      thresholds[code] = parseAmount(code, amount);
    } catch (error) {
      if (error instanceof MoneyError) throw new InvalidInput(`The ${code} threshold: ${error.message}`, field);
      throw error;
    }
  }
  if (input.mode === "above" && Object.keys(thresholds).length === 0) {
    throw new InvalidInput(
      "Give the amount from which payments need approval, in at least one currency.",
      "thresholds",
    );
  }
  const kept = input.mode === "above" ? thresholds : {};
  await db.transaction(async (tx) => {
    // In the transaction that saves the rule: a role change or removal checks the rule in its own
    // transaction, so one of the two always sees the other (writes take turns, decision 006).
    if (input.mode !== "none" || input.new_recipient) await assertSomeoneElseApproves(tx, accountId);
    const before = await ruleRow(tx, accountId);
    const after = await rowOf<RuleRow>(
      tx,
      `INSERT INTO approval_rules (account_id, mode, thresholds, new_recipient, updated_by, updated_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (account_id) DO UPDATE SET mode = excluded.mode, thresholds = excluded.thresholds,
         new_recipient = excluded.new_recipient, updated_by = excluded.updated_by, updated_at = excluded.updated_at
       RETURNING mode, thresholds, new_recipient, updated_by, updated_at`,
      [accountId, input.mode, JSON.stringify(kept), input.new_recipient ? 1 : 0, by.userId, now.getTime()],
    );
    await audit(tx, {
      // Always the customer's own change: an administrator on behalf was refused above.
      actor: by.userId,
      subject: null,
      account: accountId,
      action: "approval-rule.change",
      before: before ? termsOf(before) : null,
      after: termsOf(after!),
    }, now);
  });
}

/** Whether the rule makes any payment wait for a second person. */
export function ruleMakesPaymentsWait(rule: ApprovalRule): boolean {
  return rule.mode !== "none" || rule.newRecipient;
}

/** The rule in words, for a refusal that names it ("every payment needs approval"). */
export function ruleInWords(rule: ApprovalRule): string {
  const parts: string[] = [];
  if (rule.mode === "all") parts.push("every payment needs approval");
  if (rule.mode === "above") parts.push("payments from a threshold on need approval");
  if (rule.newRecipient) parts.push("the first payment to a new recipient needs approval");
  return parts.join(", and ");
}

/**
 * Of these users, those who can act on their account now, as the guards decide it
 * (server/guards.ts canActOnAccount): someone invited who has not finished signing up, or who is
 * restricted, approves nothing, so they do not count as someone who could.
 */
export async function whoCanAct(executor: Database | Tx, userIds: number[]): Promise<Set<number>> {
  const can = new Set<number>();
  for (const id of userIds) {
    const found = await userWithSummary(executor, id, true);
    if (found && canActOnAccount(found.summary)) can.add(id);
  }
  return can;
}

/**
 * Whether someone among the members other than `userId` may approve payments and can act now
 * (`canAct`, from whoCanAct): who a payment of theirs would wait for.
 */
export function someoneElseApproves(
  members: readonly { user_id: number; role: AccountRole }[],
  userId: number,
  canAct: ReadonlySet<number>,
): boolean {
  return members.some((m) => m.user_id !== userId && may(m.role, "payments.approve") && canAct.has(m.user_id));
}

/**
 * Of the members, those who may prepare payments but have nobody else among them who may approve
 * them and can act now. Someone who cannot act yet still counts as one who prepares: once they
 * can, their payments would wait too.
 */
export function strandedPreparers<M extends { user_id: number; role: AccountRole }>(
  members: M[],
  canAct: ReadonlySet<number>,
): M[] {
  return members.filter((m) => may(m.role, "payments.prepare") && !someoneElseApproves(members, m.user_id, canAct));
}

/** Everyone who may prepare payments must have someone else on the account who may approve them. */
async function assertSomeoneElseApproves(db: Database | Tx, accountId: number): Promise<void> {
  const members = await rowsOf<{ user_id: number; role: AccountRole }>(
    db,
    "SELECT user_id, role FROM account_members WHERE account_id = ? ORDER BY user_id",
    [accountId],
  );
  const canAct = await whoCanAct(db, members.map((m) => m.user_id));
  const stranded = strandedPreparers(members, canAct);
  if (!stranded.length) return;
  // Inviting is for business accounts (server/accounts/invitations.ts): on a personal account the
  // way out is not an invitation.
  const account = await rowOf<{ type: string }>(db, "SELECT type FROM accounts WHERE id = ?", [accountId]);
  const personal = account?.type !== "Business";
  if (members.length === 1) {
    throw new InvalidInput(
      personal
        ? "A personal account has one user, so nobody else could approve your payments: approval rules are for business accounts."
        : "You are the only user of this account, so nobody could approve your payments. Invite an approver first.",
      "mode",
    );
  }
  const waiting = members.filter((m) => may(m.role, "payments.approve") && !canAct.has(m.user_id));
  const people = await peopleByIds(db, [...stranded, ...waiting].map((m) => m.user_id));
  const nameOf = (m: { user_id: number }) => people.get(m.user_id)?.name ?? `user ${m.user_id}`;
  const names = stranded.map(nameOf).join(", ");
  // An approver who has not finished signing up is on the users list: say why they do not count.
  const notYet = waiting.length ? ` ${waiting.map(nameOf).join(", ")} cannot act on this account yet.` : "";
  const wayOut = personal
    ? "Approval rules are for business accounts, where you can invite an approver."
    : "Invite an approver first.";
  throw new InvalidInput(
    `Nobody else on this account could approve the payments of ${names}.${notYet} ${wayOut}`,
    "mode",
  );
}
