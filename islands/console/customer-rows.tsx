/**
 * A customer's row in the console's list: name, email, type, onboarding badges (or the rejection of
 * their application), account, and the buttons "Open account" (under it, the compliance review;
 * for a rejected application, one that overrides the rejection, as on the customer's page) and
 * "Act on behalf".
 */
import { REJECTION_REASON_TEXT } from "../../lib/compliance.ts";
import type { SessionUser } from "../../lib/session-user.ts";
import { CELL, DetailRow, MUTED, ROW_HEADER } from "../ui/table.tsx";
import { useInPlace } from "../ui/take-focus.ts";
import type { ConsoleUser } from "./calls.ts";
import { OpenAccountForm } from "./open-account-form.tsx";

export const CUSTOMER_COLUMNS = [
  { label: "Name" },
  { label: "Email" },
  { label: "Type" },
  { label: "Onboarding" },
  { label: "Account" },
  { label: "Actions", hidden: true },
];

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

export function CustomerRows({ user, current, acting, reviewing, onAct, onReview, onOpened }: {
  user: ConsoleUser;
  /** The customer the administrator acts for now. */
  current: boolean;
  /** The customer whose mode is being started, if any. */
  acting: number | null;
  reviewing: boolean;
  onAct: () => void;
  onReview: (open: boolean) => void;
  onOpened: (customer: SessionUser) => void;
}) {
  const canOpen = user.identity && !user.account;
  // Cancel or Escape in the review give the keyboard back to its Open account button.
  const review = useInPlace({ open: reviewing, setOpen: onReview });
  return (
    <>
      <tr className={current ? "bg-amber-50 dark:bg-amber-950" : undefined}>
        <th scope="row" className={ROW_HEADER}>
          <a className="underline" href={`/console/users/${user.id}`}>
            {user.name || <span className={MUTED}>No name yet</span>}
          </a>
          {current
            ? <span className="ml-2 text-xs font-semibold text-amber-800 dark:text-amber-200">(acting on behalf)</span>
            : null}
          <span className={`block text-xs font-normal ${MUTED}`}>Joined {String(user.created_at).slice(0, 10)}</span>
        </th>
        <td className={`${CELL} break-all`}>{user.username}</td>
        <td className={CELL}>{user.type}</td>
        <td className={CELL}>
          <ul className="flex flex-wrap gap-1" aria-label="Onboarding">
            <Badge on={user.validated} label="Verified" />
            <Badge on={user.profile} label="Profile" />
            <Badge on={user.identity} label="Identity" />
            {user.rejection
              ? (
                <li className="inline-flex items-center gap-1 rounded-full bg-red-100 px-2 py-0.5 text-xs font-medium text-red-900 dark:bg-red-900 dark:text-red-100">
                  <span aria-hidden="true">✕</span>
                  Rejected on {user.rejection.at.slice(0, 10)} ({REJECTION_REASON_TEXT[user.rejection.reason].label})
                </li>
              )
              : <Badge on={user.account} label="Account open" />}
          </ul>
          {user.restricted
            ? (
              <span className="mt-1 inline-block rounded-full bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-900 dark:bg-amber-900 dark:text-amber-100">
                Restricted
              </span>
            )
            : null}
        </td>
        <td className={`${CELL} font-mono`}>{user.account_ref ?? "—"}</td>
        <td className={CELL}>
          <div className="flex flex-wrap justify-end gap-2">
            {canOpen
              ? (
                <button
                  type="button"
                  className="btn-outline"
                  aria-expanded={reviewing}
                  aria-controls={`open-account-${user.id}`}
                  aria-label={`Open account for ${user.name || user.username}`}
                  ref={review.opener}
                  onClick={reviewing ? review.dismiss : review.show}
                >
                  {user.rejection ? "Open account (overrides the rejection)" : "Open account"}
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
          <DetailRow id={`open-account-${user.id}`} columns={CUSTOMER_COLUMNS.length}>
            <OpenAccountForm
              user={user}
              overridesRejection={user.rejection !== null}
              first={review.first}
              onCancel={review.dismiss}
              onOpened={onOpened}
            />
          </DetailRow>
        )
        : null}
    </>
  );
}
