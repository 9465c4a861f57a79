/** An invitation waiting to be accepted, with the button that withdraws it (its link stops working). */
import { useQueryClient } from "@tanstack/react-query";
import { errorText } from "../lib/api.ts";
import { notify } from "../lib/notification-store.ts";
import { invitationKeys } from "../lib/query-keys.ts";
import { useWrite } from "../lib/write.ts";
import { CELL, ROW_HEADER } from "../ui/table.tsx";
import { dayOf, type Invitation, revokeInvitation } from "./calls.ts";

export const INVITATION_COLUMNS = [
  { label: "Email" },
  { label: "Role" },
  { label: "Invited by" },
  { label: "Link works until" },
  { label: "Actions", hidden: true },
];

export function InvitationRow({ accountRef, invitation, withdrawable }: {
  accountRef: string;
  invitation: Invitation;
  /** An owner's invitation is withdrawn only by an owner. */
  withdrawable: boolean;
}) {
  const queries = useQueryClient();
  const withdrawal = useWrite({
    call: revokeInvitation,
    invalidates: [invitationKeys.of(accountRef)],
    onSuccess() {
      queries.setQueryData<Invitation[]>(
        invitationKeys.of(accountRef),
        (rows) => rows?.filter((r) => r.id !== invitation.id),
      );
      notify({
        title: "Invitation withdrawn",
        description: `The link sent to ${invitation.email} no longer works.`,
        color: "success",
      });
    },
  });
  return (
    <tr>
      <th scope="row" className={`${ROW_HEADER} break-all`}>{invitation.email}</th>
      <td className={CELL}>{invitation.role}</td>
      <td className={CELL}>{invitation.invited_by}</td>
      <td className={`${CELL} whitespace-nowrap`}>{dayOf(invitation.expires_at)}</td>
      <td className={`${CELL} text-right`}>
        {withdrawable
          ? (
            <button
              type="button"
              className="btn-outline"
              disabled={withdrawal.isPending}
              aria-label={`Withdraw the invitation to ${invitation.email}`}
              onClick={() => withdrawal.mutate({ params: { id: invitation.id } })}
            >
              {withdrawal.isPending ? "Withdrawing…" : "Withdraw"}
            </button>
          )
          : null}
        {withdrawal.isError ? <p role="alert" className="mt-1 field-error">{errorText(withdrawal.error)}</p> : null}
      </td>
    </tr>
  );
}
