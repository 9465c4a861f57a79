import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { type FormEvent, type Ref, useEffect, useState } from "react";
import { ALERT_KIND_NAMES } from "../lib/alerts.ts";
import { ALERT_KINDS, RAISED_BY_YOU } from "../lib/alerts.ts";
import {
  type Alert,
  alertKeys,
  type AlertListFilter,
  type AlertPage,
  assignAlert,
  listAlerts,
  resolveAlert,
  setAlertThreshold,
} from "./alerts/calls.ts";
import { errorText, fieldsOf } from "./lib/api.ts";
import { notify } from "./lib/notification-store.ts";
import { read, withQueries } from "./lib/query-client.tsx";
import { useWrite } from "./lib/write.ts";
import { SubmitButton } from "./ui/submit-button.tsx";
import { CELL, DetailRow, EmptyRow, MUTED, Table } from "./ui/table.tsx";
import { onEscape, useInPlace } from "./ui/take-focus.ts";

/**
 * The console menu's open-alert count, drawn by the server (routes/layouts/User.tsx), kept true
 * without a reload: set from each reading of the open alerts, and one less for each resolved here.
 * A count that reaches 0 hides its badge; one not drawn (there were none) is not added.
 */
function showOpenCount(next: (count: number) => number) {
  for (const badge of document.querySelectorAll('[data-count="/console/alerts"]')) {
    const number = badge.firstChild;
    if (!number) continue;
    const count = next(Number(number.textContent));
    if (count > 0) number.textContent = String(count);
    else badge.remove();
  }
}

export interface ConsoleAlertsProps {
  /** The first page of open alerts as the server rendered it: the unfiltered query starts from it. */
  alerts: AlertPage;
  /** Every administrator: alerts are given only to the active ones; the filter lists them all. */
  admins: { id: number; email: string; active: boolean }[];
  /** The signed-in administrator: the assignment's default. */
  me: number;
  /** The large-payment alert's threshold in pounds (decision 057). */
  threshold: number;
}

const COLUMNS = [
  { label: "Raised" },
  { label: "Alert" },
  { label: "Assigned to" },
  { label: "Actions", hidden: true },
];

const FILTERS: { status: AlertListFilter["status"]; label: string }[] = [
  { status: "open", label: "Open" },
  { status: "resolved", label: "Resolved" },
  { status: "all", label: "All" },
];

const SEVERITY_TONE = {
  critical: "bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-100",
  warning: "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100",
  info: "bg-neutral-200 text-neutral-800 dark:bg-neutral-800 dark:text-neutral-200",
};

const when = (iso: string) => new Date(iso).toISOString().slice(0, 16).replace("T", " ");

/**
 * The console's alerts (decision 045): what needs an administrator, by status; each open alert can
 * be given to an administrator and resolved with a note of what was done. Each write's answer
 * refreshes the lists (and the next page's menu count).
 */
function ConsoleAlerts({ alerts: initial, admins, me, threshold }: ConsoleAlertsProps) {
  const [filter, setFilter] = useState<AlertListFilter>({ status: "open", kind: "", assignedTo: "", page: 1 });
  const { status } = filter;
  /** A new filter starts again at the first page. */
  const refine = (change: Partial<AlertListFilter>) => setFilter({ ...filter, page: 1, ...change });
  const [resolving, setResolving] = useState<number | null>(null);
  const unfiltered = status === "open" && !filter.kind && !filter.assignedTo && filter.page === 1;
  const query = useQuery({
    ...read(alertKeys.list(filter), listAlerts, {
      query: {
        status,
        page: String(filter.page),
        ...(filter.kind ? { kind: filter.kind } : {}),
        ...(filter.assignedTo ? { assigned_to: filter.assignedTo } : {}),
      },
    }),
    initialData: unfiltered ? initial : undefined,
    placeholderData: keepPreviousData,
  });
  const data = query.data;
  const openTotal = status === "open" && !filter.kind && !filter.assignedTo && data && !query.isPlaceholderData
    ? data.total
    : null;
  useEffect(() => {
    if (openTotal !== null) showOpenCount(() => openTotal);
  }, [openTotal]);
  const shown = data?.items ?? [];
  const pages = data ? Math.max(1, Math.ceil(data.total / data.per_page)) : 1;

  return (
    <div className="flex flex-col gap-6">
      <ThresholdForm initial={threshold} />
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div role="group" aria-label="Show" className="flex gap-2">
          {FILTERS.map((f) => (
            <button
              key={f.status}
              type="button"
              aria-pressed={status === f.status}
              onClick={() => refine({ status: f.status })}
              className={status === f.status ? "btn-primary" : "btn-outline"}
            >
              {f.label}
            </button>
          ))}
        </div>
        <div className="flex flex-wrap items-end gap-3">
          <label className="flex flex-col text-sm">
            <span className="field-label">Kind</span>
            <select
              className="field-control"
              value={filter.kind}
              onChange={(event) => refine({ kind: event.target.value as AlertListFilter["kind"] })}
            >
              <option value="">Any kind</option>
              {ALERT_KINDS.map((k) => <option key={k} value={k}>{ALERT_KIND_NAMES[k]}</option>)}
            </select>
          </label>
          <label className="flex flex-col text-sm">
            <span className="field-label">Assigned to</span>
            <select
              className="field-control"
              value={filter.assignedTo}
              onChange={(event) => refine({ assignedTo: event.target.value })}
            >
              <option value="">Anyone</option>
              {admins.map((a) => (
                <option key={a.id} value={String(a.id)}>{a.active ? a.email : `${a.email} (disabled)`}</option>
              ))}
            </select>
          </label>
        </div>
        <p role="status" className={`text-sm ${MUTED}`}>
          {query.isPending ? "Loading…" : data?.total === 1 ? "1 alert" : `${data?.total ?? 0} alerts`}
        </p>
      </div>

      <Table caption="Alerts" columns={COLUMNS} busy={query.isFetching}>
        {!query.isPending && shown.length === 0
          ? (
            <EmptyRow columns={COLUMNS.length}>
              {status === "open" ? "Nothing needs attention: no open alerts." : "No alerts."}
            </EmptyRow>
          )
          : null}
        {shown.map((a) => (
          <AlertRows
            key={a.id}
            alert={a}
            admins={admins}
            me={me}
            resolving={resolving === a.id}
            onResolving={(open) => setResolving(open ? a.id : null)}
          />
        ))}
      </Table>
      {pages > 1 && (
        <nav aria-label="Pages of alerts" className="flex items-center gap-3 text-sm">
          <button
            type="button"
            className="btn-outline"
            disabled={filter.page <= 1}
            onClick={() => setFilter({ ...filter, page: filter.page - 1 })}
          >
            Previous
          </button>
          <span>Page {filter.page} of {pages}</span>
          <button
            type="button"
            className="btn-outline"
            disabled={filter.page >= pages}
            onClick={() => setFilter({ ...filter, page: filter.page + 1 })}
          >
            Next
          </button>
        </nav>
      )}
    </div>
  );
}

function AlertRows({ alert, admins, me, resolving, onResolving }: {
  alert: Alert;
  admins: ConsoleAlertsProps["admins"];
  me: number;
  resolving: boolean;
  onResolving: (open: boolean) => void;
}) {
  // Only active administrators can be given an alert; the default is oneself, unless it is theirs already.
  const assignable = admins.filter((a) => a.active);
  const current = assignable.find((a) => a.id === alert.assigned_to?.id);
  const [assignee, setAssignee] = useState(String(current?.id ?? me));
  const assign = useWrite({
    call: assignAlert,
    idempotent: true,
    invalidates: [alertKeys.all],
    onSuccess: (answer) =>
      notify({
        title: `Alert ${answer.id} assigned`,
        description: `To ${answer.assigned_to?.email}`,
        color: "success",
      }),
  });
  const name = ALERT_KIND_NAMES[alert.kind];
  const open = alert.resolved_at === null;
  // Given up (Cancel, Escape), the note's form gives the keyboard back to Resolve.
  const question = useInPlace({ open: resolving, setOpen: onResolving });

  return (
    <>
      <tr data-alert={alert.id}>
        <td className={`${CELL} whitespace-nowrap ${MUTED}`}>{when(alert.created_at)}</td>
        <td className={CELL}>
          <span
            className={`mr-2 inline-block rounded-full px-2 py-0.5 text-xs font-medium ${
              SEVERITY_TONE[alert.severity]
            }`}
          >
            {alert.severity}
          </span>
          <span className="font-medium">{name}</span>
          <span className="block">{alert.message}</span>
          <SubjectLinks subject={alert.subject} />
          {alert.resolved_at && (
            <span className={`block text-xs ${MUTED}`}>
              Resolved by {alert.resolved_by?.email} on {when(alert.resolved_at)}: {alert.resolution_note}
            </span>
          )}
        </td>
        <td className={CELL}>
          {open
            ? (
              <form
                className="flex flex-wrap items-center gap-2"
                aria-label={`Assign alert ${alert.id}`}
                onSubmit={(event) => {
                  event.preventDefault();
                  assign.mutate({ params: { id: alert.id }, body: { admin_id: Number(assignee) } }, {
                    onError: (err) => notify({ title: "Not assigned", description: errorText(err), color: "error" }),
                  });
                }}
              >
                <label className="sr-only" htmlFor={`assignee-${alert.id}`}>Administrator</label>
                <select
                  id={`assignee-${alert.id}`}
                  className="field-control w-auto"
                  value={assignee}
                  onChange={(event) => setAssignee(event.currentTarget.value)}
                >
                  {assignable.map((a) => <option key={a.id} value={a.id}>{a.email}</option>)}
                </select>
                <SubmitButton pending={assign.isPending} pendingLabel="Assigning…" className="btn-outline">
                  Assign
                </SubmitButton>
              </form>
            )
            : <span className={MUTED}>{alert.assigned_to?.email ?? "Nobody"}</span>}
          {open && alert.assigned_to && <span className={`block text-xs ${MUTED}`}>Now: {alert.assigned_to.email}
          </span>}
        </td>
        <td className={CELL}>
          {open && alert.raised_by?.id === me && <span className={`text-sm ${MUTED}`}>{RAISED_BY_YOU}</span>}
          {open && alert.raised_by?.id !== me && (
            <button
              type="button"
              className="btn-outline"
              aria-expanded={resolving}
              aria-controls={`resolve-row-${alert.id}`}
              aria-label={`Resolve alert ${alert.id}`}
              ref={question.opener}
              onClick={resolving ? question.dismiss : question.show}
            >
              Resolve
            </button>
          )}
        </td>
      </tr>
      {resolving && (
        <DetailRow id={`resolve-row-${alert.id}`} columns={COLUMNS.length}>
          <ResolveForm alert={alert} first={question.first} onCancel={question.dismiss} onDone={question.close} />
        </DetailRow>
      )}
    </>
  );
}

/**
 * Where to act on what the alert is about: the customer's page, the receipt's row, the payment's row
 * on its payout desk (local or transfer; decision 057).
 */
function SubjectLinks({ subject }: { subject: Alert["subject"] }) {
  const links: [string, string][] = [];
  if (typeof subject.user_id === "number") links.push([`/console/users/${subject.user_id}`, "The customer"]);
  if (typeof subject.receipt_id === "number") {
    links.push([`/console/receipts#receipt-${subject.receipt_id}`, `Receipt ${subject.receipt_id}`]);
  }
  if (typeof subject.payment_id === "number") {
    const desk = subject.desk === "transfer" ? "transfer" : "local";
    links.push([`/console/${desk}#payout-${subject.payment_id}`, `Payment ${subject.payment_id} on the payout desk`]);
  }
  if (!links.length) return null;
  return (
    <span className="mt-1 flex gap-3 text-xs">
      {links.map(([href, label]) => <a key={href} className="underline" href={href}>{label}</a>)}
    </span>
  );
}

/** The large-payment threshold, changed here instead of by a redeploy (audited; decision 057). */
function ThresholdForm({ initial }: { initial: number }) {
  const [gbp, setGbp] = useState(String(initial));
  const [problem, setProblem] = useState<string | null>(null);
  const save = useWrite({
    call: setAlertThreshold,
    idempotent: true,
    onSuccess: (answer) => {
      setProblem(null);
      notify({
        title: "Threshold saved",
        description: `Payments above ${answer.gbp} GBP raise an alert.`,
        color: "success",
      });
    },
  });
  return (
    <form
      aria-label="Large-payment threshold"
      className="flex flex-wrap items-end gap-3"
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        save.mutate({ body: { gbp } }, { onError: (err) => setProblem(fieldsOf(err).gbp ?? errorText(err)) });
      }}
    >
      <label className="flex flex-col text-sm">
        <span className="field-label">Alert on payments above (GBP)</span>
        <input
          className="field-control w-40"
          inputMode="numeric"
          value={gbp}
          onChange={(event) => setGbp(event.target.value)}
          aria-invalid={problem ? true : undefined}
        />
      </label>
      <SubmitButton pending={save.isPending} pendingLabel="Saving…" className="btn-outline">
        Save threshold
      </SubmitButton>
      {problem && <p role="alert" className="field-error">{problem}</p>}
    </form>
  );
}

function ResolveForm({ alert, first, onCancel, onDone }: {
  alert: Alert;
  /** The note's box, which takes the keyboard as the form opens (useInPlace's `first`). */
  first: Ref<HTMLTextAreaElement>;
  onCancel: () => void;
  onDone: () => void;
}) {
  const [note, setNote] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const resolve = useWrite({
    call: resolveAlert,
    idempotent: true,
    invalidates: [alertKeys.all],
    onSuccess: (answer) => {
      notify({ title: `Alert ${answer.id} resolved`, color: "success" });
      showOpenCount((count) => count - 1);
      onDone();
    },
  });
  const id = `note-${alert.id}`;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!note.trim()) return setProblem("Write what was done about it: it is kept with the alert.");
    setProblem(null);
    resolve.mutate({ params: { id: alert.id }, body: { note } }, {
      onError: (err) => setProblem(fieldsOf(err).note ?? errorText(err)),
    });
  }

  return (
    <form
      onSubmit={submit}
      onKeyDown={onEscape(onCancel)}
      noValidate
      aria-label={`Resolve alert ${alert.id}`}
      className="flex flex-col gap-3"
    >
      <label htmlFor={id} className="field-label">What was done</label>
      <textarea
        id={id}
        className="field-control"
        rows={2}
        ref={first}
        value={note}
        onChange={(event) => setNote(event.currentTarget.value)}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${id}-error` : undefined}
      />
      <div className="flex gap-3">
        <SubmitButton pending={resolve.isPending} pendingLabel="Resolving…" className="btn-primary">
          Resolve the alert
        </SubmitButton>
        <button type="button" className="btn-ghost" onClick={onCancel}>Cancel</button>
      </div>
      <p id={`${id}-error`} role="alert" className={problem ? "field-error" : ""}>{problem}</p>
    </form>
  );
}

export default withQueries(ConsoleAlerts);
