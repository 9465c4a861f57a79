/** What the customer reads about their identity check, by its status. */
import { Alert } from "../ui/alert.tsx";

export type IdentityStatus = "none" | "pending" | "approved" | "retry" | "rejected";

const message = {
  none: "We need to check your identity before we can open your account. It takes a few minutes.",
  pending: "We are checking your documents. This usually takes a few minutes.",
  approved: "Your identity is verified.",
} as const;

export function StatusBox({ status, note, supportEmail }: {
  status: IdentityStatus;
  note: string | null;
  /** Where to write to us (SUPPORT_EMAIL), named where the refusal says to contact us. */
  supportEmail?: string | null;
}) {
  if (status === "retry") {
    return (
      <Alert live={false} tone="warning" title="Please try again">
        <p>We could not verify your identity from what you sent.</p>
        {note ? <p className="mt-1">What to fix: {note}</p> : null}
      </Alert>
    );
  }
  if (status === "rejected") {
    return (
      <Alert live={false} tone="error" title="We could not verify your identity">
        {note ? <p>{note}</p> : null}
        <p className={note ? "mt-1" : undefined}>
          If you think this is a mistake, write to us
          {supportEmail
            ? (
              <>
                {" "}at <a href={`mailto:${supportEmail}`} className="font-semibold underline">{supportEmail}</a>
              </>
            )
            : null}.
        </p>
      </Alert>
    );
  }
  return (
    <p className="text-neutral-700 dark:text-neutral-300">
      {message[status]}
      {status === "approved"
        ? (
          <>
            {" "}
            <a href="/auth" className="font-semibold text-primary-800 underline dark:text-primary-300">Continue</a>
          </>
        )
        : null}
    </p>
  );
}
