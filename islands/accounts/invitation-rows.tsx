/** An invitation waiting to be accepted, with the button that withdraws it (its link stops working). */
import { useQueryClient } from "@tanstack/react-query";
import { errorText } from "../lib/api.ts";
import { notify } from "../lib/notification-store.ts";
import { invitationKeys } from "../lib/query-keys.ts";
import { useWrite } from "../lib/write.ts";
import { CELL, MUTED, PHONE_HIDDEN, PHONE_ONLY, ROW_HEADER } from "../ui/table.tsx";
import { type Invitation, revokeInvitation } from "./calls.ts";
import { momentInUtc } from "../../lib/moment.ts";
import { BusyButton } from "../ui/submit-button.tsx";

// On a phone the role, who invited and the link's last day go under the email, so that Withdraw is
// on screen rather than past a sideways scroll (decision 040, phone width).
export const INVITATION_COLUMNS = [
  { label: "Email" },
  { label: "Role", hiddenOnPhone: true },
  { label: "Invited by", hiddenOnPhone: true },
  { label: "Link works until", hiddenOnPhone: true },
  { label: "Actions", hidden: true },
];

export function InvitationRow({ accountRef, invitation, withdrawable }: {
  accountRef: string;
  invitation: Invitation;
  /** An owner's invitation is withdrawn only by an owner. */
  withdrawable: boolean;
}) {
  const queries = useQueryClient();
  // Said as the email and the invitation's page say it (lib/moment.ts): the link stops at a moment.
  const until = momentInUtc(new Date(invitation.expires_at));
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
      <th scope="row" className={`${ROW_HEADER} break-all`}>
        {invitation.email}
        <span className={`${PHONE_ONLY} ${MUTED} font-normal break-normal`}>
          {`${invitation.role}, invited by ${invitation.invited_by}; the link works until ${until}`}
        </span>
      </th>
      <td className={`${CELL} ${PHONE_HIDDEN}`}>{invitation.role}</td>
      <td className={`${CELL} ${PHONE_HIDDEN}`}>{invitation.invited_by}</td>
      <td className={`${CELL} ${PHONE_HIDDEN} whitespace-nowrap`}>{until}</td>
      <td className={`${CELL} text-right`}>
        {withdrawable
          ? (
            <BusyButton
              type="button"
              className="btn-outline"
              busy={withdrawal.isPending}
              aria-label={`Withdraw the invitation to ${invitation.email}`}
              onClick={() => withdrawal.mutate({ params: { id: invitation.id } })}
            >
              {withdrawal.isPending ? "Withdrawing…" : "Withdraw"}
            </BusyButton>
          )
          : null}
        {withdrawal.isError ? <p role="alert" className="mt-1 field-error">{errorText(withdrawal.error)}</p> : null}
      </td>
    </tr>
  );
}
