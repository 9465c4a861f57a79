import type { Context } from "hono";
import type { ReactNode } from "react";
import { AUDIT_ACTIONS } from "../../lib/audit.ts";
import { idText } from "../../lib/contracts/common.ts";
import { listAdministrators } from "../../server/console/administrators.ts";
import type { AppEnv } from "../../server/env.ts";
import { NotFound } from "../../server/errors.ts";
import { planDetail } from "../../server/money/plan-detail.ts";
import { ConsoleAdmins } from "../islands.ts";
import { PageTitle } from "../layouts/parts.tsx";
import { AuditChanges } from "./console/audit-changes.tsx";
import { ScrollBox } from "../../islands/ui/table.tsx";

/**
 * The console's administrators (decision 044), and one pricing plan's page (issue 11 item 9),
 * which the server renders whole: it only shows, and the plans screen changes plans.
 */

export async function ConsoleAdminsPage(c: Context<AppEnv>) {
  return (
    <section>
      <PageTitle lead="Who runs the console: invite an administrator by email, see when each last signed in, disable one who leaves.">
        Administrators
      </PageTitle>
      <ConsoleAdmins administrators={await listAdministrators(c.get("db"))} youId={c.get("user")!.id} />
    </section>
  );
}

/** A pricing plan's page exists only for a plan that exists. */
export async function pricingPlanExists(params: Record<string, string>, c: Context<AppEnv>): Promise<boolean> {
  const id = idText.safeParse(params.id);
  if (!id.success) return false;
  try {
    await planDetail(c.get("db"), id.data);
    return true;
  } catch (error) {
    if (error instanceof NotFound) return false;
    throw error;
  }
}

const TERM = "text-neutral-600 dark:text-neutral-400";
const TH = "py-2 pr-4 font-medium";
const TD = "py-2 pr-4";
const ROW = "border-t border-neutral-200 align-top dark:border-neutral-800";

/** "0.50%" for 50 basis points. */
const percent = (bps: number) => `${(bps / 100).toFixed(2)}%`;
const moment = (iso: string) => iso.slice(0, 16).replace("T", " ");

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="flex flex-col gap-3">
      <h2 id={id} className="text-lg font-semibold">{title}</h2>
      {children}
    </section>
  );
}

function SimpleTable({ caption, head, children }: { caption: string; head: string[]; children: ReactNode }) {
  return (
    <ScrollBox label={caption}>
      <table className="w-full text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className={TERM}>
          <tr>{head.map((h) => <th key={h} scope="col" className={TH}>{h}</th>)}</tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </ScrollBox>
  );
}

export async function ConsolePricingPlanPage(c: Context<AppEnv>) {
  // The row has checked that the plan exists (pricingPlanExists).
  const plan = await planDetail(c.get("db"), idText.parse(c.req.param("id")));
  const tierStart = (i: number) => (i === 0 ? "0" : `above ${plan.tiers[i - 1].up_to}`);
  return (
    <section className="flex flex-col gap-8">
      <div>
        <p className="text-sm">
          <a href="/console/pricingplan" className="link">All pricing plans</a>
        </p>
        <PageTitle
          lead={`${
            plan.is_default ? "The default plan: every account without a plan of its own is on it. " : ""
          }Created ${moment(plan.created_at)} UTC, last changed ${moment(plan.updated_at)} UTC.`}
        >
          {plan.name}
        </PageTitle>
      </div>

      <Section id="plan-tiers" title={`Markup tiers, by amount in ${plan.tier_currency}`}>
        <SimpleTable caption="Markup tiers" head={["From", "Up to", "Markup"]}>
          {plan.tiers.map((tier, i) => (
            <tr key={i} className={ROW}>
              <td className={TD}>{tierStart(i)}</td>
              <td className={TD}>{tier.up_to ?? "and above"}</td>
              <td className={TD}>{percent(tier.bps)}</td>
            </tr>
          ))}
        </SimpleTable>
      </Section>

      <Section id="plan-fees" title="Transfer fees">
        <SimpleTable caption="Transfer fees by currency" head={["Currency", "Regular", "Priority"]}>
          {Object.entries(plan.fees).map(([code, fee]) => (
            <tr key={code} className={ROW}>
              <th scope="row" className={`${TD} font-medium`}>{code}</th>
              <td className={TD}>{fee.regular} {code}</td>
              <td className={TD}>{fee.priority} {code}</td>
            </tr>
          ))}
        </SimpleTable>
      </Section>

      <Section
        id="plan-accounts"
        title={`Accounts on this plan (${plan.account_count})`}
      >
        {plan.accounts.length === 0
          ? <p className={`text-sm ${TERM}`}>No account is on this plan.</p>
          : (
            <SimpleTable caption="Accounts on this plan" head={["Account", "Name", "Type", "Put on the plan"]}>
              {plan.accounts.map((account) => (
                <tr key={account.account_ref} className={ROW}>
                  <th scope="row" className={`${TD} font-medium`}>{account.account_ref}</th>
                  <td className={TD}>{account.name}</td>
                  <td className={TD}>{account.type}</td>
                  <td className={TD}>
                    {account.assigned_at
                      ? `${moment(account.assigned_at)} by ${account.assigned_by ?? "—"}`
                      : "By default"}
                  </td>
                </tr>
              ))}
            </SimpleTable>
          )}
        {plan.account_count > plan.accounts.length
          ? <p className={`text-sm ${TERM}`}>Showing the first {plan.accounts.length}, by account_ref.</p>
          : null}
      </Section>

      <Section id="plan-history" title="History of changes">
        {plan.history.length === 0
          ? <p className={`text-sm ${TERM}`}>No change recorded: the plan is as the portal first wrote it.</p>
          : (
            <SimpleTable caption="History of changes" head={["When (UTC)", "Who", "What", "Changes"]}>
              {plan.history.map((entry) => (
                <tr key={entry.id} className={ROW}>
                  <td className={`${TD} whitespace-nowrap`}>{moment(entry.at)}</td>
                  <td className={`${TD} break-all`}>{entry.actor.email}</td>
                  <td className={TD}>
                    {AUDIT_ACTIONS[entry.action]}
                    {entry.account_ref ? <span className={`block ${TERM}`}>{entry.account_ref}</span> : null}
                  </td>
                  <td className={TD}>
                    <AuditChanges before={entry.before} after={entry.after} />
                  </td>
                </tr>
              ))}
            </SimpleTable>
          )}
      </Section>
    </section>
  );
}
