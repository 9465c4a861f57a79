import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api, errorText, statusOf } from "./lib/api.ts";
import { withQueries } from "./lib/query-client.tsx";
import { identityKeys } from "./lib/query-keys.ts";
import { useWrite } from "./lib/write.ts";
import { answerSandbox, confirmIdentity, type SandboxAnswer } from "./onboarding/calls.ts";
import { type IdentityStatus, StatusBox } from "./onboarding/identity-status.tsx";
import { SandboxControls } from "./onboarding/sandbox-controls.tsx";
import { SumsubLauncher } from "./onboarding/sumsub-launcher.tsx";
import { Alert } from "./ui/alert.tsx";
import { BusyButton } from "./ui/submit-button.tsx";

export interface IdentityCheckProps {
  provider: "sandbox" | "sumsub";
  status: IdentityStatus;
  /** The provider's comment on a "retry" (what to fix) or a "rejected" review. */
  comment?: string | null;
  /** Where to write to us (SUPPORT_EMAIL), named when the check is refused. */
  supportEmail?: string | null;
}

export const STILL_IN_PROGRESS =
  "Your check is still in progress. We will email you when it is done; you can also check again in a few minutes.";

interface Outcome {
  status: IdentityStatus;
  note?: string | null;
  info?: string;
  error?: string;
}

/**
 * What the review's answer says: approved (the API layer follows the redirect to /auth); 422, try
 * again with the provider's comment; 403, rejected; 409, still in progress; anything else, an error.
 */
function outcomeOf(review: { isSuccess: boolean; error: unknown }, current: IdentityStatus): Outcome | null {
  if (review.isSuccess) return { status: "approved", info: "Your identity is verified. Taking you to the next step…" };
  if (!review.error) return null;
  const text = errorText(review.error);
  switch (statusOf(review.error)) {
    case 422:
      return { status: "retry", note: text };
    case 403:
      return { status: "rejected", note: text };
    case 409:
      return { status: "pending", info: STILL_IN_PROGRESS };
    default:
      return { status: current, error: text };
  }
}

/**
 * The identity check (DESIGN.md section 3, step 5). With the sandbox provider: three buttons that
 * record a review (clearly marked: nobody checks anything). With Sumsub: its WebSDK in the page.
 * Either way, sumsub/confirm (the review query, asked when the customer acts) then says the result.
 */
function IdentityCheck({ provider, status: initialStatus, comment, supportEmail = null }: IdentityCheckProps) {
  // What the SDK said meanwhile (pending), or an error of its own; the review's answer comes first.
  const [sdk, setSdk] = useState<{ status?: IdentityStatus; error?: string }>({});
  const review = useQuery({
    queryKey: identityKeys.review,
    queryFn: ({ signal }) => api.send(confirmIdentity, {}, { signal }),
    // Asked for when the customer acts, never by itself; each answer is final for that moment.
    enabled: false,
    retry: false,
  });
  const sandbox = useWrite({ call: answerSandbox, idempotent: true, onSuccess: () => void review.refetch() });

  const ask = () => {
    setSdk({});
    void review.refetch();
  };
  const answer = (body: SandboxAnswer) => {
    setSdk({});
    sandbox.mutate({ body });
  };

  const busy = sandbox.isPending || review.isFetching;
  const outcome = outcomeOf(review, sdk.status ?? initialStatus);
  const status = outcome?.status ?? sdk.status ?? initialStatus;
  const note = outcome?.note ?? (status === initialStatus ? comment ?? null : null);
  // While a new answer is on its way, the last one's messages are no longer said.
  const info = busy ? undefined : outcome?.info;
  const error = busy ? null : sandbox.error ? errorText(sandbox.error) : outcome?.error ?? sdk.error;
  const settled = status === "approved" || status === "rejected";

  return (
    <div className="flex flex-col gap-4" aria-busy={busy || undefined}>
      {/* Always on the page, so a screen reader announces each new state. */}
      <div aria-live="polite" className="flex flex-col gap-4">
        <StatusBox status={status} note={note} supportEmail={supportEmail} />
        {info ? <Alert live={false} tone={status === "approved" ? "success" : "info"}>{info}</Alert> : null}
      </div>
      {error ? <Alert>{error}</Alert> : null}

      {settled ? null : provider === "sandbox" ? <SandboxControls busy={busy} onAnswer={answer} /> : (
        <SumsubLauncher
          onReviewed={ask}
          onPending={() => setSdk({ status: "pending" })}
          onError={(message) => setSdk({ error: message })}
        />
      )}

      {settled || (provider === "sandbox" && status !== "pending") ? null : (
        <div>
          <BusyButton type="button" className="btn-outline" busy={busy} onClick={ask}>
            Check my result
          </BusyButton>
        </div>
      )}
    </div>
  );
}

export default withQueries(IdentityCheck);
