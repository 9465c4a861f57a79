import { resendEmail } from "./alerts/calls.ts";
import { errorText } from "./lib/api.ts";
import { withQueries } from "./lib/query-client.tsx";
import { useWrite } from "./lib/write.ts";
import { SubmitButton } from "./ui/submit-button.tsx";
import { useInPlace } from "./ui/take-focus.ts";

/**
 * "Send again" on an email's console page: sends the same HTML and text to the same address as a
 * new email (its own row and delivery status, audited), then links to it. The first click asks to
 * confirm (decision 057): a customer receives it again, which cannot be undone.
 */
function EmailResend({ id, to }: { id: number; to: string }) {
  const resend = useWrite({ call: resendEmail, idempotent: true });
  // One button asks, then sends: Cancel or Escape leave the question with the keyboard back on it.
  const question = useInPlace<HTMLButtonElement>();
  const confirming = question.open;
  const sent = resend.data;
  return (
    <div className="flex flex-col gap-2">
      <form
        onKeyDown={confirming ? question.onKeyDown : undefined}
        onSubmit={(event) => {
          event.preventDefault();
          if (!confirming) return question.show();
          question.close();
          resend.mutate({ params: { id } });
        }}
      >
        {confirming && <p role="status">{to} will receive this email again. Send it?</p>}
        <div className="flex flex-wrap gap-2">
          <SubmitButton
            ref={(button) => {
              question.opener.current = button;
              question.first(button);
            }}
            pending={resend.isPending}
            pendingLabel="Sending…"
            className="btn-primary"
          >
            {confirming ? "Yes, send it again" : `Send again to ${to}`}
          </SubmitButton>
          {confirming && <button type="button" className="btn-ghost" onClick={question.dismiss}>Cancel</button>}
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
