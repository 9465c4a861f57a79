/**
 * An audit entry's values before and after, as staff read them: a short list of
 * "field: old → new" in words (decision 026 keeps the values as JSON; the screens never show it).
 * Nested values are named by their path ("fees › GBP › regular"); a field the entry only set shows
 * its new value, one it only removed its old one. Shared by the customer page, the plan history
 * and the console's audit screen.
 */

import { Fragment } from "react";
import { AUDIT_ACTIONS } from "../../../lib/audit.ts";
import type { AuditEntry } from "../../../server/audit.ts";
import { ScrollBox } from "../../../islands/ui/table.tsx";

type Flat = Map<string, unknown>;

/** Words for a field's key: "override_transfer_fee" → "override transfer fee", "planId" → "plan id". */
export const fieldWords = (key: string) =>
  /[a-z]/.test(key) // A code such as GBP stays as it is.
    ? key.replace(/([a-z])([A-Z])/g, "$1 $2").replaceAll("_", " ").replaceAll("-", " ").toLowerCase()
    : key;

/** A value in words: yes/no, "—" for nothing, lists joined, and text as it is. */
export function valueWords(value: unknown): string {
  if (value === null || value === undefined || value === "") return "—";
  if (value === true) return "yes";
  if (value === false) return "no";
  if (Array.isArray(value)) return value.length ? value.map(valueWords).join(", ") : "none";
  if (typeof value === "object") {
    return Object.entries(value as Record<string, unknown>).map(([k, v]) => `${fieldWords(k)} ${valueWords(v)}`)
      .join(", ");
  }
  return String(value).replaceAll("_", " ");
}

function flatten(value: unknown, path: string[], out: Flat): Flat {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    // Two levels deep at most: deeper values are read as one ("fees › GBP: regular 1.50, priority 3.00").
    if (path.length < 2 && entries.length) {
      for (const [key, v] of entries) flatten(v, [...path, key], out);
      return out;
    }
  }
  out.set(path.length ? path.map(fieldWords).join(" › ") : "value", value);
  return out;
}

export interface Change {
  field: string;
  before: string | null;
  after: string | null;
  /** What the entry is about, each with its console page when there is one. */
  about?: { text: string; href?: string }[];
}

/**
 * Where the console shows each payment entries name, by id: its row on the payout desk
 * (server/payouts/queue.ts deskPagesOf); a payment missing from it is named, not linked.
 */
export type PaymentPages = ReadonlyMap<number, string>;

/**
 * The console pages of the things an entry can be about, by the name its identifying field gives
 * them ("partner_id" → partner). A payment has no page of its own: it links to the desk's row of
 * it, looked up for the entries shown (PaymentPages).
 */
const PAGE_OF: Record<string, string> = {
  user: "/console/users/",
  customer: "/console/users/",
  partner: "/console/partners/",
  email: "/console/emails/",
  bulk_email: "/console/bulkemails/",
  plan: "/console/pricingplan/",
  migration: "/console/migration/",
};

const IDENTIFYING = /^(.+)_ids?$/;
const isId = (value: unknown) => typeof value === "number" || (typeof value === "string" && value !== "");

/**
 * What an entry is about: its identifying fields ("payment_id", "payment_ids") that hold the same
 * in before and after. They did not change, so the differences alone would hide them, and then two
 * entries of one action ("Marked a payment as arrived") could not be told apart.
 */
function identifyingOf(
  before: unknown,
  after: unknown,
  paymentPages: PaymentPages,
): { changes: Change[]; keys: Set<string> } {
  const changes: Change[] = [];
  const keys = new Set<string>();
  if (!isRecord(before) || !isRecord(after)) return { changes, keys };
  for (const [key, value] of Object.entries(before)) {
    const thing = IDENTIFYING.exec(key)?.[1];
    if (!thing || !(key in after) || JSON.stringify(after[key]) !== JSON.stringify(value)) continue;
    const ids = Array.isArray(value) ? value : [value];
    if (!ids.length || !ids.every(isId)) continue;
    keys.add(fieldWords(key));
    const page = PAGE_OF[thing];
    const hrefOf = (id: unknown) =>
      thing === "payment" ? paymentPages.get(Number(id)) : page && !Array.isArray(value) ? `${page}${id}` : undefined;
    const about = ids.map((id) => ({ text: `#${id}`, href: hrefOf(id) }));
    changes.push({
      field: fieldWords(thing) + (Array.isArray(value) ? "s" : ""),
      before: null,
      after: about.map((a) => a.text).join(", "),
      ...(about.some((a) => a.href) ? { about } : {}),
    });
  }
  return { changes, keys };
}

/** The payments entries name ("payment_id", "payment_ids"), to look up where the console shows them. */
export function paymentIdsOf(entries: readonly Pick<AuditEntry, "before" | "after">[]): number[] {
  const ids = entries.flatMap((e) =>
    [e.before, e.after].flatMap((side) => {
      if (!isRecord(side)) return [];
      const named = [side.payment_id, ...(Array.isArray(side.payment_ids) ? side.payment_ids : [])];
      return named.filter((id): id is number => typeof id === "number");
    })
  );
  return [...new Set(ids)];
}

/**
 * Actions whose before and after are not one thing's old and new values, in their own words. A
 * resend records the email sent again (with its status then) as before and the new email as after:
 * compared field by field, that read "status: sent → removed", as if something were deleted.
 */
const CHANGES_OF_ACTION: Record<string, (before: Record<string, unknown>, after: Record<string, unknown>) => Change[]> =
  {
    "email.resend": (before, after) => [
      { field: "email", before: `#${before.id}`, after: `sent again as #${after.id}` },
      { field: "to", before: null, after: valueWords(after.to) },
      { field: "subject", before: null, after: valueWords(after.subject) },
      ...(before.status
        ? [{ field: `status of #${before.id} then`, before: null, after: valueWords(before.status) }]
        : []),
    ],
  };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  !!value && typeof value === "object" && !Array.isArray(value);

/**
 * What the entry is about (its identifying fields, even unchanged), then the fields that differ
 * between before and after (or that either holds when the other is empty); for an action of
 * CHANGES_OF_ACTION, what it did in its own words.
 */
export function changesOf(
  before: unknown,
  after: unknown,
  action?: string,
  paymentPages: PaymentPages = new Map(),
): Change[] {
  const own = action ? CHANGES_OF_ACTION[action] : undefined;
  if (own && isRecord(before) && isRecord(after)) return own(before, after);
  const was = before === null || before === undefined ? new Map() : flatten(before, [], new Map());
  const is = after === null || after === undefined ? new Map() : flatten(after, [], new Map());
  const about = identifyingOf(before, after, paymentPages);
  const fields = [...new Set([...was.keys(), ...is.keys()])].filter((field) => !about.keys.has(field));
  return [
    ...about.changes,
    ...fields.flatMap((field) => {
      const a = was.has(field) ? valueWords(was.get(field)) : null;
      const b = is.has(field) ? valueWords(is.get(field)) : null;
      return a === b ? [] : [{ field, before: a, after: b }];
    }),
  ];
}

export function AuditChanges(
  { before, after, action, paymentPages }: {
    before: unknown;
    after: unknown;
    action?: string;
    paymentPages?: PaymentPages;
  },
) {
  const changes = changesOf(before, after, action, paymentPages);
  if (!changes.length) return <span className="text-neutral-600 dark:text-neutral-400">—</span>;
  return (
    <ul className="flex flex-col gap-0.5" data-audit-changes="">
      {changes.map((c) => (
        <li key={c.field} className="break-words">
          {c.about
            ? (
              <>
                {`${c.field}: `}
                {c.about.map((a, i) => (
                  <Fragment key={a.text}>
                    {i ? ", " : null}
                    {a.href ? <a className="underline" href={a.href}>{a.text}</a> : a.text}
                  </Fragment>
                ))}
              </>
            )
            : `${c.field}: ${
              c.before === null ? c.after : c.after === null ? `${c.before} → removed` : `${c.before} → ${c.after}`
            }`}
        </li>
      ))}
    </ul>
  );
}

const TERM = "text-neutral-600 dark:text-neutral-400";

/**
 * An email that may wrap at its "@" and dots only ("olga.ops@" / "portal.test"), never mid-word as
 * `break-all` wrapped it in the narrow column of a phone ("bos / s@ / port / al.te / st").
 */
export function Email({ email }: { email: string }) {
  const parts = email.split(/(?=[@.])/);
  return <>{parts.flatMap((part, i) => i ? [<wbr key={`w${i}`} />, part] : [part])}</>;
}

export interface Subject {
  name: string;
  admin: boolean;
}

/** Whom an entry is for: a customer links to their page; an administrator has none. */
function Subject({ id, who }: { id: number; who: Subject | undefined }) {
  if (!who) return <span>{`User ${id}`}</span>;
  if (who.admin) return <span>{`${who.name} (administrator)`}</span>;
  return <a className="underline" href={`/console/users/${id}`}>{who.name}</a>;
}

/**
 * Audit entries as a table: when, who, what (and the account), for whom when asked (the console's
 * audit screen), and what changed in words.
 */
export function AuditTable(
  { entries, customers, paymentPages }: {
    entries: AuditEntry[];
    /** Where the console shows the payments the entries name (paymentIdsOf). */
    paymentPages?: PaymentPages;
    /** Whom the entries are for, by id (a customer, or an administrator invited or disabled): adds the "For whom" column. */
    customers?: Map<number, Subject>;
  },
) {
  return (
    <ScrollBox label="Audit log">
      <table className="w-full text-left text-sm">
        <thead className={TERM}>
          <tr>
            <th scope="col" className="py-2 pr-4 font-medium">When (UTC)</th>
            <th scope="col" className="py-2 pr-4 font-medium">Who</th>
            <th scope="col" className="py-2 pr-4 font-medium">What</th>
            {customers ? <th scope="col" className="py-2 pr-4 font-medium">For whom</th> : null}
            <th scope="col" className="py-2 font-medium">Changes</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id} className="border-t border-neutral-200 align-top dark:border-neutral-800">
              <td className="py-2 pr-4 whitespace-nowrap">{entry.at.slice(0, 16).replace("T", " ")}</td>
              <td className="py-2 pr-4">
                <Email email={entry.actor.email} />
              </td>
              <td className="py-2 pr-4">
                {AUDIT_ACTIONS[entry.action] ?? entry.action}
                {entry.account_ref ? <span className={`block ${TERM}`}>{entry.account_ref}</span> : null}
              </td>
              {customers
                ? (
                  <td className="py-2 pr-4">
                    {entry.subject_id
                      ? <Subject id={entry.subject_id} who={customers.get(entry.subject_id)} />
                      : <span className={TERM}>—</span>}
                  </td>
                )
                : null}
              <td className="py-2">
                <AuditChanges
                  before={entry.before}
                  after={entry.after}
                  action={entry.action}
                  paymentPages={paymentPages}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}
