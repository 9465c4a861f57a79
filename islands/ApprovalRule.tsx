import { useQuery } from "@tanstack/react-query";
import { read, withQueries } from "./lib/query-client.tsx";
import { approvalRuleKeys } from "./lib/query-keys.ts";
import { ApprovalRuleForm } from "./payments/approval-rule-form.tsx";
import { type ApprovalRule as Rule, getApprovalRule } from "./payments/calls.ts";
import type { CurrencyOption } from "./ui/currency-select.tsx";

export interface ApprovalRuleProps {
  /** The current account: the rule's query is keyed by it. */
  accountRef: string;
  /** The rule as the server rendered it: the query starts from it. */
  rule: Rule;
  /** The person looking may change the rule (approvals.manage: an owner or admin). */
  canManage: boolean;
  /** The currencies an amount may be given in. */
  currencies: CurrencyOption[];
}

const approvalRuleQuery = (accountRef: string) => read(approvalRuleKeys.of(accountRef), getApprovalRule);

/** The rule in words, as every member of the account reads it. */
function ruleSentences(rule: Rule): string[] {
  const amounts = Object.entries(rule.thresholds).map(([currency, amount]) => `${amount} ${currency}`);
  const main = rule.mode === "all"
    ? "Every payment needs a second person's approval before it is sent."
    : rule.mode === "above"
    ? `A payment of ${amounts.join(" or ")} or more needs a second person's approval before it is sent.`
    : rule.new_recipient
    ? "A payment needs no approval for its amount."
    : "No payment needs approval: a payment is sent once it is made.";
  return rule.new_recipient
    ? [main, "The first payment to a new recipient, or to a recipient's changed bank details, needs approval."]
    : [main];
}

const DAY = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeZone: "UTC" });

/**
 * The account's approval rule (maker-checker, decision 030): what it says, for every member, and
 * for an owner or admin the form that changes it (GET and PUT account/approvals).
 */
function ApprovalRule({ accountRef, rule: initial, canManage, currencies }: ApprovalRuleProps) {
  const rule = useQuery({ ...approvalRuleQuery(accountRef), initialData: initial }).data;
  return (
    <div className="flex min-w-0 flex-col gap-4">
      <div className="flex flex-col gap-1 text-sm" aria-live="polite">
        {ruleSentences(rule).map((sentence) => <p key={sentence}>{sentence}</p>)}
        {rule.updated_by && rule.updated_at
          ? (
            <p className="text-neutral-600 dark:text-neutral-300">
              {`Set by ${rule.updated_by.name} on ${DAY.format(new Date(rule.updated_at))}.`}
            </p>
          )
          : null}
      </div>
      {canManage
        ? <ApprovalRuleForm accountRef={accountRef} rule={rule} currencies={currencies} />
        : (
          <p className="field-hint">
            Owners and admins set this rule. Approvers, owners and admins approve the payments that wait.
          </p>
        )}
    </div>
  );
}

export default withQueries(ApprovalRule);
