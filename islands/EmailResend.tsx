import { resendEmail } from "./alerts/calls.ts";
import { errorText } from "./lib/api.ts";
import { withQueries } from "./lib/query-client.tsx";
import { useWrite } from "./lib/write.ts";
import { SubmitButton } from "./ui/submit-button.tsx";

/**
 * "Send again" on an email's console page: sends the same HTML and text to the same address as a
 * new email (its own row and delivery status, audited), then links to it.
 */
function EmailResend({ id, to }: { id: number; to: string }) {
  const resend = useWrite({ call: resendEmail, idempotent: true });
  const sent = resend.data;
  return (
    <div className="flex flex-col gap-2">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          resend.mutate({ params: { id } });
        }}
      >
        <SubmitButton pending={resend.isPending} pendingLabel="Sending…" className="btn-primary">
          Send again to {to}
        </SubmitButton>
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
