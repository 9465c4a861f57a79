import { useState } from "react";
import { resendEmail } from "./alerts/calls.ts";
import { errorText } from "./lib/api.ts";
import { withQueries } from "./lib/query-client.tsx";
import { useWrite } from "./lib/write.ts";
import { SubmitButton } from "./ui/submit-button.tsx";

/**
 * "Send again" on an email's console page: sends the same HTML and text to the same address as a
 * new email (its own row and delivery status, audited), then links to it. The first click asks to
 * confirm (decision 057): a customer receives it again, which cannot be undone.
 */
function EmailResend({ id, to }: { id: number; to: string }) {
  const resend = useWrite({ call: resendEmail, idempotent: true });
  const [confirming, setConfirming] = useState(false);
  const sent = resend.data;
  return (
    <div className="flex flex-col gap-2">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!confirming) return setConfirming(true);
          setConfirming(false);
          resend.mutate({ params: { id } });
        }}
      >
        {confirming && <p role="status">{to} will receive this email again. Send it?</p>}
        <div className="flex flex-wrap gap-2">
          <SubmitButton pending={resend.isPending} pendingLabel="Sending…" className="btn-primary">
            {confirming ? "Yes, send it again" : `Send again to ${to}`}
          </SubmitButton>
          {confirming && (
            <button type="button" className="btn-ghost" onClick={() => setConfirming(false)}>Cancel</button>
          )}
        </div>
      </form>
      <p role="status">
        {sent && (
          <>
            Sent again as <a className="underline" href={`/console/emails/${sent.id}`}>email {sent.id}</a>{" "}
            ({sent.status}).
          </>
        )}
      </p>
      {resend.isError && <p role="alert" className="field-error">{errorText(resend.error)}</p>}
    </div>
  );
}

export default withQueries(EmailResend);
