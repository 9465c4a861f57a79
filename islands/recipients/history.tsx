/**
 * A recipient's history, newest first: added, bank details changed (what they were and became),
 * name, type or email changed; each with when and by whom, and the member of our staff when it was
 * done on the customer's behalf.
 */
import type { DetailKey } from "../../lib/bank-details/formats.ts";
import type { RecipientChange } from "./calls.ts";
import { detailLines, moment, shownDetail } from "./format.ts";
import { Grouped } from "./grouped.tsx";

type Values = NonNullable<RecipientChange["before"]>;

const WHAT: Record<RecipientChange["kind"], string> = {
  created: "Added",
  details: "Bank details changed",
  name: "Name, type or email changed",
  deleted: "Deleted",
};

/** "by Ada Lovelace", or "by Ada Lovelace (through our staff: ops@example.com)". */
export const byWhom = (change: Pick<RecipientChange, "by" | "on_behalf_by">): string =>
  `by ${change.by}${change.on_behalf_by ? ` (through our staff: ${change.on_behalf_by})` : ""}`;

const typeText = (type: Values["type"]) => (type === "business" ? "a business" : "a person");

/** The lines a change shows: "IBAN: DE89 … → DE02 …", "Name: Jean Dupont → Dupont SARL". */
function changedLines(change: RecipientChange): [label: string, was: string, is: string][] {
  const before = change.before ?? {};
  const after = change.after ?? {};
  if (change.kind === "details") {
    const was: Partial<Record<DetailKey, string>> = before.details ?? {};
    const is: Partial<Record<DetailKey, string>> = after.details ?? {};
    const shown = (key: DetailKey, value?: string) => (value ? shownDetail(key, value) : "none");
    return detailLines({ ...was, ...is }).filter(([key]) => was[key] !== is[key])
      .map(([key, label]) => [label, shown(key, was[key]), shown(key, is[key])]);
  }
  if (change.kind !== "name") return [];
  const lines: [string, string, string][] = [];
  if ("name" in after) lines.push(["Name", before.name ?? "", after.name ?? ""]);
  if ("type" in after) lines.push(["Type", typeText(before.type), typeText(after.type)]);
  if ("email" in after) lines.push(["Email", before.email || "none", after.email || "none"]);
  return lines;
}

export function History({ changes }: { changes: readonly RecipientChange[] }) {
  return (
    <ol className="flex flex-col gap-3">
      {changes.map((change) => {
        const lines = changedLines(change);
        return (
          <li key={change.id} className="rounded-md border border-neutral-200 p-3 text-sm dark:border-neutral-800">
            <p>
              <span className="font-medium">{WHAT[change.kind]}</span> on {moment(change.at)} {byWhom(change)}
            </p>
            {lines.length
              ? (
                <dl className="mt-2 grid gap-1">
                  {lines.map(([label, was, is]) => (
                    <div key={label} className="grid gap-x-2 sm:grid-cols-[10rem_1fr]">
                      <dt className="text-neutral-600 dark:text-neutral-300">{label}</dt>
                      <dd className="font-mono break-words">
                        <del className="no-underline text-neutral-600 dark:text-neutral-300">
                          {change.kind === "details" ? <Grouped text={was} /> : was}
                        </del>
                        <span aria-hidden="true">&#32;→&#32;</span>
                        <span className="sr-only">&#32;became&#32;</span>
                        <ins className="no-underline">{change.kind === "details" ? <Grouped text={is} /> : is}</ins>
                      </dd>
                    </div>
                  ))}
                </dl>
              )
              : null}
          </li>
        );
      })}
    </ol>
  );
}
