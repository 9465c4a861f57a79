import type { Context } from "hono";
import type { ReactNode } from "react";
import { REJECTION_REASON_TEXT } from "../../lib/compliance.ts";
import { idText } from "../../lib/contracts/common.ts";
import { listCustomers as listCustomersCall } from "../../lib/contracts/admin.ts";
import { reversedPeriod } from "../../lib/periods.ts";
import {
  type ComplianceRecord,
  complianceRecordOf,
  type FlagAnswers,
  reviewAnswersOf,
} from "../../server/accounts/compliance.ts";
import { listCustomers } from "../../server/accounts/customers.ts";
import { AUDIT_LIMIT, auditEntries, type AuditEntry } from "../../server/audit.ts";
import { AuditTable, paymentIdsOf, type PaymentPages } from "./console/audit-changes.tsx";
import { deskPagesOf } from "../../server/payouts/queue.ts";
import { userWithSummary } from "../../server/auth/users.ts";
import type { AppEnv } from "../../server/env.ts";
import { currencyList } from "../../server/money/currencies.ts";
import { feeOverridesOf } from "../../server/money/pricing.ts";
import { ConsoleActOnBehalf, ConsoleRestrict, ConsoleReview, ConsoleUserFees, ConsoleUsers } from "../islands.ts";
import { asc, eq } from "drizzle-orm";
import { accountMembers, accounts, identityChecks } from "../../db/schema.ts";
import { restrictionOf } from "../../server/accounts/restriction.ts";
import { balancesAnswer } from "../../server/money/balances.ts";
import { planForAccount } from "../../server/money/plans.ts";
import { listPayments } from "../../server/payments/read.ts";
import type { Database } from "../../db/client.ts";
import { PageTitle } from "../layouts/parts.tsx";
import { ConsoleCustomerPartner } from "../islands.ts";
import { listPartners } from "../../server/partners/partners.ts";
import { type Assignment, assignmentsOf } from "../../server/partners/assignments.ts";
import { profileFactsOf } from "../../server/profile/facts.ts";
import { savedProfile } from "../../server/profile/store.ts";
import { lastSupportChange } from "../../server/profile/support-change.ts";
import { ConsoleProfileEdit } from "../islands.ts";
import { customerNamesByIds } from "../../server/payments/people.ts";
import { ScrollBox } from "../../islands/ui/table.tsx";

/** The console's customers: the list, and one customer's page with the review and the audit trail. */

/** What the list's address carries: the search, the page and the filters (the page size is the island's). */
const LIST_ADDRESS = ["q", "page", "type", "step", "restricted", "has_balance", "from", "to"];

/**
 * The list as the address asks for it (the island keeps its search and filters there): Back from a
 * customer's page, or a link, shows the same search, not every customer. An address that cannot
 * be read (a filter by hand, a reversed period) shows the list unfiltered; the form then says why.
 */
export async function ConsoleUsersPage(c: Context<AppEnv>) {
  const raw = Object.fromEntries(
    Object.entries(c.req.query()).filter(([key, value]) => LIST_ADDRESS.includes(key) && value.trim() !== ""),
  );
  const parsed = listCustomersCall.query!.safeParse(raw);
  const readable = parsed.success && !reversedPeriod(parsed.data.from, parsed.data.to);
  const first = await listCustomers(c.get("db"), readable ? parsed.data : {});
  const asked = readable ? raw : {};
  return (
    <section>
      <PageTitle lead="Customers, their onboarding, compliance review and accounts.">Customers</PageTitle>
      <ConsoleUsers first={first} asked={asked} onBehalfId={c.get("onBehalf")?.id ?? null} />
    </section>
  );
}

const TERM = "text-neutral-600 dark:text-neutral-400";

function Facts({ rows }: { rows: [string, ReactNode][] }) {
  return (
    <dl className="grid grid-cols-[minmax(0,14rem)_1fr] gap-x-4 gap-y-2 text-sm">
      {rows.map(([term, value]) => (
        <div key={term} className="contents">
          <dt className={TERM}>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A flag's answer: a raised one stands out, with what it is about when there is more to say. */
const yesNo = (on: boolean, about?: string) =>
  on ? <strong className="text-amber-800 dark:text-amber-300">{about ? `Yes: ${about}` : "Yes"}</strong> : "No";

/** The answers that made a person wait for the review: each flag, and whom they act for. */
function FlagsList({ flags }: { flags: FlagAnswers }) {
  return (
    <Facts
      rows={[
        ["Politically exposed person", yesNo(flags.public)],
        ["Refused an account before", yesNo(flags.denial)],
        ["Acting on behalf of someone else", yesNo(flags.agency, flags.agency_of)],
      ]}
    />
  );
}

/** Where the review stands: done with its volume and date, or rejected with what the customer was told. */
function ReviewRecord({ record }: { record: ComplianceRecord }) {
  if (record.rejection) {
    const { rejection } = record;
    return (
      <Facts
        rows={[
          ["Decision", <strong key="d">Rejected on {rejection.at.slice(0, 10)} by {rejection.by.email}</strong>],
          ["The customer was told", REJECTION_REASON_TEXT[rejection.reason].customer],
          ["Note for the file", rejection.note],
        ]}
      />
    );
  }
  if (!record.done) return <p className="text-sm">No decision yet.</p>;
  return (
    <Facts
      rows={[
        ["Decision", "Approved"],
        ["Approved annual volume", record.amount ?? "—"],
        ["Review date", record.date ?? "—"],
      ]}
    />
  );
}

/** Everything done to or for the customer, newest first, with who did it and what it changed. */
function AuditTrail(
  { entries, customerId, paymentPages }: { entries: AuditEntry[]; customerId: number; paymentPages: PaymentPages },
) {
  if (!entries.length) return <p className="text-sm text-neutral-600 dark:text-neutral-400">Nothing recorded yet.</p>;
  return (
    <>
      <AuditTable entries={entries} paymentPages={paymentPages} />
      {entries.length >= AUDIT_LIMIT
        ? (
          <p className={`mt-2 text-sm ${TERM}`}>
            The latest {entries.length}:{" "}
            <a className="underline" href={`/console/audit?customer=${customerId}`}>
              the audit screen
            </a>{" "}
            has them all.
          </p>
        )
        : null}
    </>
  );
}

/** The identity check as the provider last answered it: its status, and its comment when it gave one. */
async function identityOf(db: Database, id: number): Promise<string> {
  const [row] = await db.select({
    provider: identityChecks.provider,
    status: identityChecks.status,
    comment: identityChecks.moderationComment,
    at: identityChecks.reviewedAt,
  }).from(identityChecks).where(eq(identityChecks.userId, id));
  if (!row) return "Not started";
  const status =
    { pending: "Pending", approved: "Approved", retry: "Asked to retry", rejected: "Rejected" }[row.status];
  return [
    `${status} (${row.provider}${row.at ? `, ${row.at.toISOString().slice(0, 10)}` : ""})`,
    row.comment,
  ].filter(Boolean).join(": ");
}

/** The accounts the customer belongs to, with their role on each: their own first. */
async function accountsOf(db: Database, id: number) {
  return await db.select({
    id: accounts.id,
    accountRef: accounts.accountRef,
    name: accounts.name,
    openedAt: accounts.openedAt,
    role: accountMembers.role,
  }).from(accountMembers).innerJoin(accounts, eq(accounts.id, accountMembers.accountId))
    .where(eq(accountMembers.userId, id)).orderBy(asc(accounts.id));
}

/**
 * The customer's own account as the console sees it: its balances, its pricing plan and its
 * latest payments (the 20 newest; the payout desk has the rest).
 */
async function accountFactsOf(db: Database, accountId: number, adminId: number, now: Date) {
  const [balances, plan, payments] = await Promise.all([
    balancesAnswer(db, accountId),
    planForAccount(db, accountId),
    listPayments(db, accountId, { page: 1, perPage: 20 }, { userId: adminId, role: "viewer", onBehalf: true, now }),
  ]);
  return { balances, plan, payments };
}

function AccountFacts({ balances, plan, payments }: Awaited<ReturnType<typeof accountFactsOf>>) {
  return (
    <>
      <section aria-labelledby="balances-heading" className="card">
        <h2 id="balances-heading" className="mb-3 text-lg font-semibold">Balances</h2>
        {balances.length
          ? (
            <Facts
              rows={balances.map((
                b,
              ) => [
                b.currency,
                `${b.available} available${b.held !== b.available && Number(b.held) ? ` · ${b.held} held` : ""}`,
              ])}
            />
          )
          : <p className="text-sm">No money on the account yet.</p>}
      </section>
      <section aria-labelledby="plan-heading" className="card">
        <h2 id="plan-heading" className="mb-3 text-lg font-semibold">Pricing plan</h2>
        <p className="text-sm">
          <a className="underline" href={`/console/pricingplan/${plan.id}`}>{plan.name}</a>
          {plan.is_default ? " (the default plan)" : ""}
        </p>
      </section>
      <section aria-labelledby="payments-heading" className="card">
        <h2 id="payments-heading" className="mb-3 text-lg font-semibold">Payments</h2>
        {payments.items.length
          ? (
            <ScrollBox label="The customer's latest payments">
              <table className="w-full text-left text-sm">
                <caption className="sr-only">The customer's latest payments</caption>
                <thead className={TERM}>
                  <tr>
                    <th scope="col" className="py-2 pr-4 font-medium">Made</th>
                    <th scope="col" className="py-2 pr-4 font-medium">To</th>
                    <th scope="col" className="py-2 pr-4 font-medium">Paid</th>
                    <th scope="col" className="py-2 pr-4 font-medium">Arrives</th>
                    <th scope="col" className="py-2 font-medium">Status</th>
                  </tr>
                </thead>
                <tbody>
                  {payments.items.map((p) => (
                    <tr key={p.id} className="border-t border-neutral-200 dark:border-neutral-800">
                      <td className="py-2 pr-4 whitespace-nowrap">{p.created_at.slice(0, 10)}</td>
                      <td className="py-2 pr-4">{p.recipient.name}</td>
                      <td className="py-2 pr-4 whitespace-nowrap">{p.sell_amount} {p.sell_currency}</td>
                      <td className="py-2 pr-4 whitespace-nowrap">{p.buy_amount} {p.buy_currency}</td>
                      <td className="py-2">{p.status.replaceAll("_", " ")}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {payments.total > payments.items.length
                ? <p className={`mt-2 text-sm ${TERM}`}>The latest {payments.items.length} of {payments.total}.</p>
                : null}
            </ScrollBox>
          )
          : <p className="text-sm">No payments yet.</p>}
      </section>
    </>
  );
}

/** Whose customer they were and from when (decision 062), newest first: what the commissions read. */
function PartnerHistory({ assignments, customerId }: { assignments: Assignment[]; customerId: number }) {
  if (!assignments.length) return <p className={`text-sm ${TERM}`}>No partner so far.</p>;
  return (
    <ScrollBox label="Partner history">
      <table className="w-full text-left text-sm" aria-label="Partner history">
        <thead>
          <tr className={TERM}>
            <th scope="col" className="py-2 pr-4 font-medium">From (UTC)</th>
            <th scope="col" className="py-2 pr-4 font-medium">Partner</th>
            <th scope="col" className="py-2 font-medium">By</th>
          </tr>
        </thead>
        <tbody>
          {assignments.map((a, i) => (
            <tr key={i} className="border-t border-neutral-200 dark:border-neutral-800" data-assignment={a.starts_at}>
              <td className="py-2 pr-4 whitespace-nowrap">{a.starts_at.slice(0, 16).replace("T", " ")}</td>
              <td className="py-2 pr-4">
                {a.partner_id === null
                  ? "No partner"
                  : <a className="link" href={`/console/partners/${a.partner_id}`}>{a.partner}</a>}
              </td>
              <td className="py-2">
                {a.by_id === null
                  ? "Recorded from sign-up"
                  : a.by_id === customerId
                  ? "Registered with the code"
                  : a.by}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}

export async function ConsoleCustomerPage(c: Context<AppEnv>) {
  // The page's row has checked that the id is a customer's (routes/pages.tsx).
  const id = idText.parse(c.req.param("id"));
  const db = c.get("db");
  const found = await userWithSummary(db, id, false);
  if (!found || found.user.level === "Admin") return null;
  const { user, summary } = found;
  // Named as the customers list and search name them: a migrated customer by their file's name (decision 065).
  const customer = { ...summary, name: (await customerNamesByIds(db, [id])).get(id) ?? summary.name };
  const [answers, record, trail, restriction, memberOf, identity, partners, profile, assignments] = await Promise.all([
    reviewAnswersOf(db, id),
    complianceRecordOf(db, id),
    auditEntries(db, id),
    restrictionOf(db, id),
    accountsOf(db, id),
    identityOf(db, id),
    listPartners(db),
    profileFactsOf(db, id),
    assignmentsOf(db, id),
  ]);
  const own = memberOf.find((a) => a.accountRef === customer.account_ref) ?? memberOf[0];
  const [facts, paymentPages] = await Promise.all([
    own ? accountFactsOf(db, own.id, c.get("user")!.id, new Date(c.get("services").now())) : null,
    deskPagesOf(db, paymentIdsOf(trail)),
  ]);
  // What support can change (decision 078): the profile as saved, and who changed it last if support did.
  const [saved, changedBy] = profile
    ? await Promise.all([savedProfile(db, id), lastSupportChange(db, id, profile.updatedAt)])
    : [null, null];
  return (
    <section className="flex max-w-4xl flex-col gap-6">
      <PageTitle lead={`${customer.username} · ${customer.type} · since ${user.createdAt.toISOString().slice(0, 10)}`}>
        {customer.name}
      </PageTitle>
      <div className="card">
        <Facts
          rows={[
            ["Email validated", customer.validated ? "Yes" : "No"],
            ["Profile", customer.profile ? "Saved" : "Not yet"],
            ["Identity", identity],
            ["Account", customer.account_ref ?? "Not open"],
            ...memberOf.map((a): [string, ReactNode] => [
              `Account ${a.accountRef}`,
              `${a.name} · ${a.role} · opened ${a.openedAt.toISOString().slice(0, 10)}`,
            ]),
            ["Restricted", restriction.restricted ? yesNo(true, restriction.reason ?? undefined) : "No"],
          ]}
        />
      </div>
      <ConsoleActOnBehalf
        customer={{ id: customer.id, name: customer.name || customer.username }}
        current={c.get("onBehalf")?.id === customer.id}
      />
      <section aria-labelledby="restriction-heading" className="card flex flex-col gap-3">
        <h2 id="restriction-heading" className="text-lg font-semibold">Restriction</h2>
        <ConsoleRestrict customer={{ id: customer.id, name: customer.name }} restriction={restriction} />
      </section>
      <section aria-labelledby="profile-heading" className="card flex flex-col gap-3" data-profile={customer.type}>
        <h2 id="profile-heading" className="text-lg font-semibold">Profile</h2>
        {profile
          ? (
            <>
              <p className={`text-sm ${TERM}`}>
                {changedBy
                  ? `What the customer told us, as last changed by ${changedBy.by} on ${
                    changedBy.at.toISOString().slice(0, 10)
                  } (the audit trail says why).`
                  : `What the customer told us, as last saved on ${profile.updatedAt.toISOString().slice(0, 10)}.`}
              </p>
              <Facts rows={profile.facts} />
              <ConsoleProfileEdit
                customer={{ id: customer.id, name: customer.name, type: profile.type }}
                saved={saved && typeof saved === "object" ? saved as Record<string, unknown> : {}}
              />
            </>
          )
          : <p className="text-sm">The customer has not saved a profile yet.</p>}
      </section>
      {facts ? <AccountFacts {...facts} /> : null}
      <section aria-labelledby="partner-heading" className="card flex flex-col gap-3">
        <h2 id="partner-heading" className="text-lg font-semibold">Partner</h2>
        <p className="text-sm">
          {user.referralCode
            ? `Registered with the referral code ${user.referralCode}. `
            : "Registered without a referral code. "}
          A partner earns their share of this customer's fee and markup income while the customer is theirs: a change
          applies from the time it is made.
        </p>
        <ConsoleCustomerPartner
          customer={{ id: customer.id, name: customer.name }}
          partners={partners.map((p) => ({ id: p.id, name: p.name, code: p.code }))}
          current={user.partnerId ?? null}
        />
        <PartnerHistory assignments={assignments} customerId={customer.id} />
      </section>
      <section aria-labelledby="review-heading" className="card flex flex-col gap-4">
        <h2 id="review-heading" className="text-lg font-semibold">Compliance review</h2>
        {answers?.identity
          ? (
            <div data-identity-mismatch={answers.identity.reason} role="note">
              <h3 className="mb-2 text-sm font-semibold">The identity check</h3>
              <p className="text-sm">
                <strong className="text-amber-800 dark:text-amber-300">{`${answers.identity.text}.`}</strong>{" "}
                The provider approved the document, but the account did not open at once: decide whether the document is
                this customer's.
              </p>
              {answers.identity.document
                ? (
                  <Facts
                    rows={[
                      ["Name on the document", answers.identity.document.name || "(none read)"],
                      ["Date of birth on the document", answers.identity.document.dob || "(none read)"],
                    ]}
                  />
                )
                : null}
            </div>
          )
          : null}
        {answers === null
          ? <p className="text-sm">The customer has not saved a profile yet: there is nothing to review.</p>
          : answers.flags
          ? (
            <div>
              <h3 className="mb-2 text-sm font-semibold">Why a person waits for a review</h3>
              <FlagsList flags={answers.flags} />
            </div>
          )
          : <p className="text-sm">Business customers are always reviewed before their account opens.</p>}
        {record
          ? (
            <div>
              <h3 className="mb-2 text-sm font-semibold">Decision</h3>
              <ReviewRecord record={record} />
            </div>
          )
          : null}
        {
          /* Only while there is something to decide: the island and its compliance form are not
            loaded for the open accounts an operator looks at most (the 35 KB budget, decision 018). */
        }
        {!customer.account && (customer.identity || customer.profile)
          ? (
            <ConsoleReview
              customer={{ id: customer.id, name: customer.name, username: customer.username }}
              canOpen={customer.identity && !customer.account}
              canReject={customer.profile && !customer.account}
              rejected={!!record?.rejection}
            />
          )
          : null}
      </section>
      <div className="card">
        <h2 className="mb-3 text-lg font-semibold">Fee overrides</h2>
        <ConsoleUserFees
          userId={customer.id}
          name={customer.name}
          overrides={feeOverridesOf(customer)!}
          currencies={currencyList()}
        />
      </div>
      <section aria-labelledby="audit-heading" className="card">
        <h2 id="audit-heading" className="mb-3 text-lg font-semibold">Audit trail</h2>
        <AuditTrail entries={trail} customerId={customer.id} paymentPages={paymentPages} />
      </section>
    </section>
  );
}
