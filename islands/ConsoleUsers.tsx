import { useRef, useState } from "react";
import type { ReactNode } from "react";
import { api, errorText, fieldsOf, isAbort, newIdempotencyKey } from "./lib/api.ts";
import { notify } from "./lib/notifications.ts";
import { type OnBehalfCustomer, onBehalfError, setOnBehalf, toCustomer } from "./lib/on-behalf.ts";
import { ERROR, inputClass as consoleInput, LABEL } from "./lib/console-fields.ts";

/** A row of GET console/users. */
export interface ConsoleUser {
  id: number;
  /** The email address. */
  username: string;
  name: string;
  type: "Personal" | "Business" | string;
  validated: boolean;
  profile: boolean;
  identity: boolean;
  account: boolean;
  account_ref: string | null;
  created_at: string;
}

export interface ConsoleUsersProps {
  users: ConsoleUser[];
  /** The customer the administrator currently acts for, if any. */
  onBehalfId: number | null;
}

const HINT = "mt-1 text-sm text-neutral-600 dark:text-neutral-300";
/** A field below its label, in the console's look. */
const inputClass = (invalid: boolean) => `mt-1 ${consoleInput(invalid)}`;

function Alert({ children }: { children: ReactNode }) {
  return (
    <div
      role="alert"
      className="rounded-md border-l-4 border-red-600 bg-red-50 p-3 text-sm text-red-900 dark:border-red-400 dark:bg-red-950 dark:text-red-100"
    >
      {children}
    </div>
  );
}

/** Where "Act on behalf" goes: a full page load, so the layout renders the banner. */
export const ACT_ON_BEHALF_TARGET = "/account";

/** Whether a row matches the search text (name, email, account reference or id). */
export function matches(user: ConsoleUser, q: string): boolean {
  const needle = q.trim().toLowerCase();
  if (!needle) return true;
  return [user.name, user.username, user.account_ref ?? "", String(user.id)].some((v) =>
    v.toLowerCase().includes(needle)
  );
}

/**
 * The administrators' customer list: a search (filters as one types; Enter also asks the server,
 * GET console/users?q=), onboarding badges, "Act on behalf" (POST account/onbehalf, then /account)
 * and, for a customer whose identity is approved but who has no account, the compliance review
 * that opens it (POST console/users/{id}/open-account).
 */
export default function ConsoleUsers({ users: initialUsers, onBehalfId }: ConsoleUsersProps) {
  const [users, setUsers] = useState(initialUsers);
  const [q, setQ] = useState("");
  const [searching, setSearching] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [acting, setActing] = useState<number | null>(null);
  const [reviewing, setReviewing] = useState<number | null>(null);
  const searchSeq = useRef(0);

  async function search(event: { preventDefault(): void }) {
    event.preventDefault();
    const seq = ++searchSeq.current;
    setSearching(true);
    setError(null);
    try {
      const found = await api.get<ConsoleUser[]>("console/users", q.trim() ? { q: q.trim() } : undefined);
      if (seq === searchSeq.current) setUsers(found ?? []);
    } catch (err) {
      if (seq === searchSeq.current && !isAbort(err)) setError(errorText(err));
    } finally {
      if (seq === searchSeq.current) setSearching(false);
    }
  }

  async function actFor(user: ConsoleUser) {
    setActing(user.id);
    setError(null);
    try {
      const answer = await api.post<OnBehalfCustomer>("account/onbehalf", { on_behalf_of: user.id }, {
        idempotencyKey: newIdempotencyKey(),
      });
      setOnBehalf(toCustomer({ ...user, ...answer }));
      location.assign(ACT_ON_BEHALF_TARGET);
    } catch (err) {
      setActing(null);
      if (!isAbort(err)) setError(onBehalfError(err));
    }
  }

  function opened(id: number, answer: { account?: boolean; account_ref?: string | null } | undefined) {
    const user = users.find((u) => u.id === id);
    const ref = answer?.account_ref ?? user?.account_ref ?? null;
    setUsers((rows) =>
      rows.map((u) => (u.id === id ? { ...u, account: answer?.account ?? true, account_ref: ref } : u))
    );
    setReviewing(null);
    notify({
      title: "Account opened",
      description: `${user?.name ?? "The customer"}'s account${ref ? ` ${ref}` : ""} is open.`,
      color: "success",
    });
  }

  const shown = users.filter((u) => matches(u, q));

  return (
    <div className="flex flex-col gap-4">
      <form role="search" onSubmit={search} className="flex flex-wrap items-end gap-3">
        <div className="min-w-64 flex-1">
          <label htmlFor="console-users-search" className={LABEL}>Search customers</label>
          <input
            id="console-users-search"
            type="search"
            value={q}
            onChange={(event) => setQ(event.currentTarget.value)}
            placeholder="Name, email or account reference"
            autoComplete="off"
            className={inputClass(false)}
          />
        </div>
        <button
          type="submit"
          className="btn-ghost border border-neutral-300 dark:border-neutral-700"
          disabled={searching}
        >
          {searching ? "Searching…" : "Search"}
        </button>
      </form>

      {error ? <Alert>{error}</Alert> : null}

      <p role="status" className="text-sm text-neutral-600 dark:text-neutral-300">
        {shown.length === 1 ? "1 customer" : `${shown.length} customers`}
      </p>

      <div className="overflow-x-auto rounded-xl border border-neutral-200 dark:border-neutral-800">
        <table className="w-full text-left text-sm">
          <thead className="bg-neutral-50 text-neutral-700 dark:bg-neutral-900 dark:text-neutral-300">
            <tr>
              <th scope="col" className="px-4 py-3 font-semibold">Name</th>
              <th scope="col" className="px-4 py-3 font-semibold">Email</th>
              <th scope="col" className="px-4 py-3 font-semibold">Type</th>
              <th scope="col" className="px-4 py-3 font-semibold">Onboarding</th>
              <th scope="col" className="px-4 py-3 font-semibold">Account</th>
              <th scope="col" className="px-4 py-3 font-semibold">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-neutral-200 dark:divide-neutral-800">
            {shown.length === 0
              ? (
                <tr>
                  <td colSpan={6} className="px-4 py-6 text-center text-neutral-600 dark:text-neutral-300">
                    No customer matches this search.
                  </td>
                </tr>
              )
              : null}
            {shown.map((user) => (
              <UserRows
                key={user.id}
                user={user}
                current={user.id === onBehalfId}
                acting={acting}
                reviewing={reviewing === user.id}
                onAct={() => actFor(user)}
                onReview={(open) => setReviewing(open ? user.id : null)}
                onOpened={(answer) => opened(user.id, answer)}
              />
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function Badge({ on, label }: { on: boolean; label: string }) {
  return (
    <li
      className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium ${
        on
          ? "bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100"
          : "border border-dashed border-neutral-400 text-neutral-600 dark:border-neutral-500 dark:text-neutral-300"
      }`}
    >
      <span aria-hidden="true">{on ? "✓" : "○"}</span>
      {label}
      <span className="sr-only">{on ? ": done" : ": not yet"}</span>
    </li>
  );
}

function UserRows(
  { user, current, acting, reviewing, onAct, onReview, onOpened }: {
    user: ConsoleUser;
    current: boolean;
    acting: number | null;
    reviewing: boolean;
    onAct: () => void;
    onReview: (open: boolean) => void;
    onOpened: (answer: { account?: boolean; account_ref?: string | null } | undefined) => void;
  },
) {
  const canOpen = user.identity && !user.account;
  return (
    <>
      <tr className={current ? "bg-amber-50 dark:bg-amber-950" : undefined}>
        <th scope="row" className="px-4 py-3 font-medium text-neutral-900 dark:text-neutral-100">
          {user.name || <span className="text-neutral-600 dark:text-neutral-300">No name yet</span>}
          {current
            ? <span className="ml-2 text-xs font-semibold text-amber-800 dark:text-amber-200">(acting on behalf)</span>
            : null}
          <span className="block text-xs font-normal text-neutral-600 dark:text-neutral-300">
            Joined {String(user.created_at).slice(0, 10)}
          </span>
        </th>
        <td className="px-4 py-3 break-all">{user.username}</td>
        <td className="px-4 py-3">{user.type}</td>
        <td className="px-4 py-3">
          <ul className="flex flex-wrap gap-1" aria-label="Onboarding">
            <Badge on={user.validated} label="Verified" />
            <Badge on={user.profile} label="Profile" />
            <Badge on={user.identity} label="Identity" />
            <Badge on={user.account} label="Account open" />
          </ul>
        </td>
        <td className="px-4 py-3 font-mono">{user.account_ref ?? "—"}</td>
        <td className="px-4 py-3">
          <div className="flex flex-wrap justify-end gap-2">
            {canOpen
              ? (
                <button
                  type="button"
                  className="btn-ghost border border-neutral-300 dark:border-neutral-700"
                  aria-expanded={reviewing}
                  aria-controls={`open-account-${user.id}`}
                  aria-label={`Open account for ${user.name || user.username}`}
                  onClick={() => onReview(!reviewing)}
                >
                  Open account
                </button>
              )
              : null}
            <button
              type="button"
              className="btn-primary"
              disabled={acting !== null}
              aria-label={`Act on behalf of ${user.name || user.username}`}
              onClick={onAct}
            >
              {acting === user.id ? "Switching…" : "Act on behalf"}
            </button>
          </div>
        </td>
      </tr>
      {canOpen && reviewing
        ? (
          <tr id={`open-account-${user.id}`}>
            <td colSpan={6} className="bg-neutral-50 px-4 py-4 dark:bg-neutral-900">
              <OpenAccountForm user={user} onCancel={() => onReview(false)} onOpened={onOpened} />
            </td>
          </tr>
        )
        : null}
    </>
  );
}

/** The compliance review that opens a customer's account (SPEC.md sections 3 and 5). */
function OpenAccountForm(
  { user, onCancel, onOpened }: {
    user: ConsoleUser;
    onCancel: () => void;
    onOpened: (answer: { account?: boolean; account_ref?: string | null } | undefined) => void;
  },
) {
  const [done, setDone] = useState(false);
  const [amount, setAmount] = useState("");
  const [date, setDate] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const base = `compliance-${user.id}`;
  const fieldError = (name: string) => fields[`compliance.${name}`] ?? fields[name];
  // A field's message is shown under it unless the alert already says exactly that.
  const below = (message: string | undefined) => (message && message !== error ? message : undefined);
  const describe = (name: string, message: string | undefined, hint?: string) =>
    message ? (below(message) ? `${base}-${name}-error` : `${base}-error`) : hint;

  async function submit(event: { preventDefault(): void }) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setFields({});
    try {
      const answer = await api.post<{ account?: boolean; account_ref?: string | null }>(
        `console/users/${user.id}/open-account`,
        { compliance: { done, amount: amount.trim(), date } },
        { idempotencyKey: newIdempotencyKey() },
      );
      onOpened(answer);
    } catch (err) {
      setBusy(false);
      if (isAbort(err)) return;
      setError(errorText(err));
      setFields(fieldsOf(err));
    }
  }

  const amountError = fieldError("amount");
  const dateError = fieldError("date");

  return (
    <form
      onSubmit={submit}
      noValidate
      aria-label={`Compliance review for ${user.name || user.username}`}
      className="flex flex-col gap-3"
    >
      <p className="text-sm font-semibold">Compliance review</p>
      <div className="flex flex-wrap items-start gap-4">
        <div className="flex items-center gap-2 pt-7">
          <input
            id={`${base}-done`}
            type="checkbox"
            checked={done}
            onChange={(event) => setDone(event.currentTarget.checked)}
            aria-invalid={fieldError("done") ? true : undefined}
            aria-describedby={fieldError("done") ? `${base}-error` : undefined}
            className="size-4 accent-primary-700"
          />
          <label htmlFor={`${base}-done`} className="text-sm">Compliance review done</label>
        </div>
        <div>
          <label htmlFor={`${base}-amount`} className={LABEL}>Approved annual volume</label>
          <input
            id={`${base}-amount`}
            type="text"
            inputMode="decimal"
            autoComplete="off"
            value={amount}
            onChange={(event) => setAmount(event.currentTarget.value)}
            aria-invalid={amountError ? true : undefined}
            aria-describedby={describe("amount", amountError, `${base}-amount-hint`)}
            className={inputClass(Boolean(amountError))}
          />
          <p id={`${base}-amount-hint`} className={HINT}>For example: 50000</p>
          {below(amountError) ? <p id={`${base}-amount-error`} className={ERROR}>{amountError}</p> : null}
        </div>
        <div>
          <label htmlFor={`${base}-date`} className={LABEL}>Review date</label>
          <input
            id={`${base}-date`}
            type="date"
            value={date}
            onChange={(event) => setDate(event.currentTarget.value)}
            aria-invalid={dateError ? true : undefined}
            aria-describedby={describe("date", dateError)}
            className={inputClass(Boolean(dateError))}
          />
          {below(dateError) ? <p id={`${base}-date-error`} className={ERROR}>{dateError}</p> : null}
        </div>
      </div>
      {error
        ? (
          <div id={`${base}-error`}>
            <Alert>{error}</Alert>
          </div>
        )
        : null}
      <div className="flex gap-2">
        <button type="submit" className="btn-primary" disabled={busy}>{busy ? "Opening…" : "Open the account"}</button>
        <button type="button" className="btn-ghost" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
