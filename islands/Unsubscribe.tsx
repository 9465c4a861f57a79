import { unsubscribe } from "./bulkemails/calls.ts";
import { errorText } from "./lib/api.ts";
import { withQueries } from "./lib/query-client.tsx";
import { useWrite } from "./lib/write.ts";
import { Alert } from "./ui/alert.tsx";
import { SubmitButton } from "./ui/submit-button.tsx";

/**
 * The unsubscribe link's page (decision 050): the link alone changes nothing (mail scanners open
 * links); the customer confirms with one button, without signing in.
 */
function Unsubscribe({ token }: { token: string }) {
  const confirm = useWrite({ call: unsubscribe, idempotent: true });
  if (confirm.data) {
    return (
      <Alert tone="success" title="You are unsubscribed" live>
        {confirm.data.email}{" "}
        will receive no more of our news. Emails about your account and your payments still reach you.
      </Alert>
    );
  }
  return (
    <form
      className="flex flex-col gap-4"
      onSubmit={(event) => {
        event.preventDefault();
        confirm.mutate({ body: { token } });
      }}
    >
      <p>Unsubscribe from Portal's news? Emails about your account and your payments will still reach you.</p>
      {confirm.isError ? <Alert>{errorText(confirm.error)}</Alert> : null}
      <div>
        <SubmitButton pending={confirm.isPending} pendingLabel="Unsubscribing…" className="btn-primary">
          Unsubscribe
        </SubmitButton>
      </div>
    </form>
  );
}

export default withQueries(Unsubscribe);
