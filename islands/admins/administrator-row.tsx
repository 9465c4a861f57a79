/**
 * One administrator in the list, with "Disable" and its confirmation (DELETE console/admins/{id});
 * an invitation waiting for a second administrator shows "Withdraw" to whoever asked for it (the
 * same call) and Approve / Refuse to the other administrators.
 */
import { useQueryClient } from "@tanstack/react-query";
import { errorText } from "../lib/api.ts";
import { notify } from "../lib/notification-store.ts";
import { administratorKeys } from "../lib/query-keys.ts";
import { useWrite } from "../lib/write.ts";
import { CELL, MUTED, ROW_HEADER } from "../ui/table.tsx";
import { type Administrator, disableAdministrator, momentOf } from "./calls.ts";
import { BusyButton } from "../ui/submit-button.tsx";
import { InvitationDecision } from "./invitation-decision.tsx";
import { useInPlace } from "../ui/take-focus.ts";

export const ADMINISTRATOR_COLUMNS = [
  { label: "Administrator" },
  { label: "Status" },
  { label: "Second factor" },
  { label: "Last sign-in" },
  { label: "Actions", hidden: true },
];

const STATUS_TEXT: Record<Administrator["status"], string> = {
  active: "Active",
  invited: "Invited",
  waiting: "Waiting for approval",
  disabled: "Disabled",
};

const SECOND_FACTOR_TEXT: Record<Administrator["second_factor"], string> = {
  "authenticator-app": "Authenticator app",
  "emailed-code": "Emailed code",
};

export function AdministratorRow({ admin, you, youAsked, confirming, onConfirm }: {
  admin: Administrator;
  /** The administrator looking: nobody disables themselves. */
  you: boolean;
  /** The administrator looking asked for this invitation: they cannot approve it, only withdraw it. */
  youAsked: boolean;
  /** The confirmation is open on this row. */
  confirming: boolean;
  onConfirm: (open: boolean) => void;
}) {
  const queries = useQueryClient();
  const who = admin.name || admin.email;
  // An invitation nobody approved yet: its inviter takes it back; the others decide it.
  const withdrawing = admin.status === "waiting";
  const deciding = withdrawing && !youAsked;
  const disabling = useWrite({
    call: disableAdministrator,
    idempotent: true,
    invalidates: [administratorKeys.all],
    onSuccess(disabled) {
      queries.setQueryData<Administrator[]>(
        administratorKeys.all,
        (rows) => rows?.map((r) => (r.id === disabled.id ? disabled : r)),
      );
      onConfirm(false);
      notify(
        withdrawing
          ? {
            title: "Invitation withdrawn",
            description: `${disabled.name || disabled.email} gets no link.`,
            color: "success",
          }
          : {
            title: "Administrator disabled",
            description: `${disabled.name || disabled.email} is signed out and can no longer sign in.`,
            color: "success",
          },
      );
    },
  });
  // The question replaces Disable: the keyboard goes to "Yes, disable", and back to Disable on Cancel or Escape.
  const question = useInPlace<HTMLButtonElement>({ open: confirming, setOpen: onConfirm });
  return (
    <tr>
      <th scope="row" className={`${ROW_HEADER} break-all`}>
        {admin.name ? <span className="block">{admin.name}</span> : null}
        <span className={admin.name ? `block font-normal ${MUTED}` : ""}>{admin.email}</span>
        {you ? <span className={`block font-normal ${MUTED}`}>You</span> : null}
      </th>
      <td className={CELL}>
        {STATUS_TEXT[admin.status]}
        {(admin.status === "invited" || admin.status === "waiting") && admin.invited_by
          ? (
            <span className={`block ${MUTED}`}>
              {withdrawing ? "asked by" : "by"} {youAsked ? "you" : admin.invited_by}
            </span>
          )
          : null}
      </td>
      <td className={CELL}>{admin.status === "active" ? SECOND_FACTOR_TEXT[admin.second_factor] : "—"}</td>
      <td className={`${CELL} whitespace-nowrap`}>{momentOf(admin.last_sign_in_at)}</td>
      <td className={`${CELL} text-right`}>
        {deciding ? <InvitationDecision admin={admin} /> : null}
        {admin.status !== "disabled" && !you && !deciding
          ? confirming
            ? (
              <div
                role="group"
                aria-label={withdrawing ? `Withdraw the invitation of ${who}?` : `Disable ${who}?`}
                className="flex flex-col items-end gap-2"
                onKeyDown={question.onKeyDown}
              >
                <p className="text-sm">
                  {withdrawing
                    ? `Withdraw the invitation of ${who}? No link is sent.`
                    : `Disable ${who}? They are signed out at once.`}
                </p>
                <div className="flex gap-2">
                  <button type="button" className="btn-outline" onClick={question.dismiss}>Cancel</button>
                  <BusyButton
                    ref={question.first}
                    type="button"
                    className="btn-primary"
                    busy={disabling.isPending}
                    onClick={() => disabling.mutate({ params: { id: admin.id } })}
                  >
                    {withdrawing
                      ? (disabling.isPending ? "Withdrawing…" : "Yes, withdraw")
                      : (disabling.isPending ? "Disabling…" : "Yes, disable")}
                  </BusyButton>
                </div>
              </div>
            )
            : (
              <button
                type="button"
                className="btn-outline"
                aria-label={withdrawing ? `Withdraw the invitation of ${who}` : `Disable ${who}`}
                ref={question.opener}
                onClick={question.show}
              >
                {withdrawing ? "Withdraw" : "Disable"}
              </button>
            )
          : null}
        {disabling.isError ? <p role="alert" className="mt-1 field-error">{errorText(disabling.error)}</p> : null}
      </td>
    </tr>
  );
}
