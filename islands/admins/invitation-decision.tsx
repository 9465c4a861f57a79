/**
 * What another administrator does with an invitation that waits for a second administrator
 * (decision 044, amended): Approve emails its link (POST console/admins/{id}/approve); Refuse asks
 * for the reason first (POST console/admins/{id}/refuse). Its inviter sees neither: they withdraw it
 * from the row instead, and the server refuses them too.
 */
import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { errorText } from "../lib/api.ts";
import { notify } from "../lib/notification-store.ts";
import { administratorKeys } from "../lib/query-keys.ts";
import { useWrite } from "../lib/write.ts";
import { TextField } from "../ui/field.tsx";
import { BusyButton } from "../ui/submit-button.tsx";
import { useInPlace } from "../ui/take-focus.ts";
import { type Administrator, approveInvitation, refuseInvitation } from "./calls.ts";

const REFUSAL_REASON = "Write why the invitation is refused (at most 500 characters): it is kept for the file.";

export function InvitationDecision({ admin }: { admin: Administrator }) {
  const queries = useQueryClient();
  const replace = (changed: Administrator) =>
    queries.setQueryData<Administrator[]>(
      administratorKeys.all,
      (rows) => rows?.map((r) => (r.id === changed.id ? changed : r)),
    );
  const who = admin.name || admin.email;
  const approving = useWrite({
    call: approveInvitation,
    idempotent: true,
    invalidates: [administratorKeys.all],
    onSuccess(approved) {
      replace(approved);
      notify({
        title: "Invitation approved",
        description: `We emailed ${approved.email} a link to choose a password.`,
        color: "success",
      });
    },
  });
  // The reason's form replaces Approve and Refuse: given up (Cancel, Escape), it gives the keyboard
  // back to Refuse.
  const question = useInPlace();
  const refusing = question.open;
  const [reason, setReason] = useState("");
  const [missing, setMissing] = useState<string | undefined>();
  const refusal = useWrite({
    call: refuseInvitation,
    idempotent: true,
    invalidates: [administratorKeys.all],
    onSuccess(refused) {
      replace(refused);
      notify({
        title: "Invitation refused",
        description: `${refused.name || refused.email} gets no link.`,
        color: "success",
      });
    },
  });

  function refuse(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const text = reason.trim();
    if (!text) return setMissing(REFUSAL_REASON);
    setMissing(undefined);
    refusal.mutate({ params: { id: admin.id }, body: { reason: text } });
  }

  const failed = approving.error ?? refusal.error;
  return (
    <div className="flex flex-col items-end gap-2">
      {refusing
        ? (
          <form
            onSubmit={refuse}
            onKeyDown={question.onKeyDown}
            noValidate
            aria-label={`Refuse ${who}`}
            className="flex flex-col items-end gap-2"
          >
            <TextField
              ref={question.first}
              id={`admin-refuse-${admin.id}`}
              label="Why is it refused?"
              autoComplete="off"
              maxLength={500}
              value={reason}
              onChange={(event) => setReason(event.currentTarget.value)}
              error={missing}
            />
            <div className="flex gap-2">
              <button type="button" className="btn-outline" onClick={question.dismiss}>Cancel</button>
              <BusyButton type="submit" className="btn-primary" busy={refusal.isPending}>
                {refusal.isPending ? "Refusing…" : "Yes, refuse"}
              </BusyButton>
            </div>
          </form>
        )
        : (
          <div className="flex gap-2">
            <BusyButton
              type="button"
              className="btn-primary"
              aria-label={`Approve ${who}`}
              busy={approving.isPending}
              onClick={() => approving.mutate({ params: { id: admin.id } })}
            >
              {approving.isPending ? "Approving…" : "Approve"}
            </BusyButton>
            <button
              type="button"
              className="btn-outline"
              aria-label={`Refuse ${who}`}
              ref={question.opener}
              onClick={question.show}
            >
              Refuse
            </button>
          </div>
        )}
      {failed ? <p role="alert" className="field-error">{errorText(failed)}</p> : null}
    </div>
  );
}
