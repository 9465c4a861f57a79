import { dateInputValue, reversedPeriod } from "../../lib/periods.ts";
import { PageLinks } from "./page-links.tsx";
import { and, eq, inArray } from "drizzle-orm";
import type { Context } from "hono";
import { users } from "../../db/schema.ts";
import { AUDIT_ACTION_NAMES, AUDIT_ACTIONS } from "../../lib/audit.ts";
import { auditScreenQuery } from "../../lib/contracts/admin.ts";
import { AUDIT_PAGE_SIZE, auditPage } from "../../server/audit.ts";
import type { AppEnv } from "../../server/env.ts";
import { customerNamesByIds, peopleByIds } from "../../server/payments/people.ts";
import { PageTitle } from "../layouts/parts.tsx";
import { AuditTable, paymentIdsOf } from "./console/audit-changes.tsx";
import { deskPagesOf } from "../../server/payouts/queue.ts";

/**
 * The console's audit screen (issue 11, "prove who did what"): the whole audit log (decision 026),
 * newest first, narrowed by who, what, for which customer and between which days, fifty entries a
 * page. A plain form that sends its filters in the address (no JavaScript), so a filtered view can
 * be linked to and kept as evidence.
 */

const FIELD = "flex flex-col gap-1 text-sm field-label";
const INPUT = "field-control";

export async function ConsoleAuditPage(c: Context<AppEnv>) {
  // The form sends every field, empty or not: an empty one is no filter, as if it were not sent.
  const raw = Object.fromEntries(Object.entries(c.req.query()).filter(([, value]) => value.trim() !== ""));
  const parsed = auditScreenQuery.safeParse(raw);
  const filter = parsed.success ? parsed.data : { page: 1 };
  // A filter that cannot be read shows its problem and no entries: the whole log under the error
  // would read as the filtered one. A period that ends before it starts is refused in the words
  // and by the rule of every other period filter (lib/periods.ts).
  const problem = parsed.success
    ? reversedPeriod(parsed.data.from, parsed.data.to)?.message ?? null
    : [...new Set(parsed.error.issues.map((i) => i.message))].join(" ");
  const customer = "customer" in filter && filter.customer !== undefined ? Number(filter.customer) : undefined;
  const result = problem
    ? { items: [], page: 1, per_page: AUDIT_PAGE_SIZE, total: 0 }
    : await auditPage(c.get("db"), { ...filter, customer }, filter.page);
  const subjectIds = [...new Set(result.items.flatMap((e) => e.subject_id ?? []))];
  const [[people, customerNames], admins, paymentPages] = await Promise.all([
    Promise.all([peopleByIds(c.get("db"), subjectIds), customerNamesByIds(c.get("db"), subjectIds)]),
    subjectIds.length
      ? c.get("db").select({ id: users.id }).from(users).where(
        and(inArray(users.id, subjectIds), eq(users.level, "Admin")),
      )
      : [],
    deskPagesOf(c.get("db"), paymentIdsOf(result.items)),
  ]);
  const adminIds = new Set(admins.map((a) => a.id));
  const pages = Math.max(1, Math.ceil(result.total / AUDIT_PAGE_SIZE));
  const link = (page: number) => {
    const query = new URLSearchParams(Object.entries(raw).filter(([k, v]) => k !== "page" && v !== ""));
    query.set("page", String(page));
    return `/console/audit?${query}`;
  };
  const value = (key: string) => raw[key] ?? "";
  return (
    <section className="flex flex-col gap-6">
      <PageTitle lead="Everything staff did in the console and for customers, newest first: who, what, for whom and what it changed.">
        Audit log
      </PageTitle>
      <form
        method="get"
        action="/console/audit"
        role="search"
        aria-label="Filter the audit log"
        className="flex flex-wrap items-end gap-3"
      >
        <label className={FIELD}>
          Who (email)
          <input className={INPUT} type="search" name="who" defaultValue={value("who")} maxLength={200} />
        </label>
        <label className={FIELD}>
          What
          <select className={INPUT} name="action" defaultValue={value("action")}>
            <option value="">Every action</option>
            {AUDIT_ACTION_NAMES.map((a) => <option key={a} value={a}>{AUDIT_ACTIONS[a]}</option>)}
          </select>
        </label>
        <label className={FIELD}>
          Customer id
          <input
            className={INPUT}
            type="text"
            inputMode="numeric"
            name="customer"
            defaultValue={value("customer")}
            size={8}
          />
        </label>
        <label className={FIELD}>
          From (UTC)
          <input className={INPUT} type="date" name="from" defaultValue={dateInputValue(value("from"))} />
        </label>
        <label className={FIELD}>
          To (UTC)
          <input className={INPUT} type="date" name="to" defaultValue={dateInputValue(value("to"))} />
        </label>
        <button type="submit" className="btn-primary">Filter</button>
        <a className="btn-ghost" href="/console/audit">Clear</a>
      </form>
      {problem
        ? <p role="alert" className="field-error">{problem}</p>
        : (
          <p className="text-sm" data-audit-total={result.total}>
            {result.total === 0
              ? "No entry matches."
              : `${result.total} ${result.total === 1 ? "entry" : "entries"}; page ${result.page} of ${pages}.`}
          </p>
        )}
      {result.items.length
        ? (
          <AuditTable
            entries={result.items}
            paymentPages={paymentPages}
            customers={new Map(
              [...people].map(([id, p]) => {
                const admin = adminIds.has(id);
                // An administrator is a person; a customer is named as the console names customers.
                return [id, { name: admin ? p.name : customerNames.get(id) ?? p.name, admin }];
              }),
            )}
          />
        )
        : null}
      <PageLinks page={result.page} pages={pages} link={link} label="Pages of the audit log" />
    </section>
  );
}
