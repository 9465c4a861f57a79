import { useState } from "react";
import { OpenAccountForm } from "./console/open-account-form.tsx";
import { RejectForm } from "./console/reject-form.tsx";
import { withQueries } from "./lib/query-client.tsx";
import { useInPlace } from "./ui/take-focus.ts";

export interface ConsoleReviewProps {
  customer: { id: number; name: string; username: string };
  /** Identity approved and no account yet: the review can open it. */
  canOpen: boolean;
  /** A profile saved and no account yet: the review can reject it. */
  canReject: boolean;
  /** Rejected already: opening needs a review that overrides the rejection. */
  rejected: boolean;
}

/**
 * The compliance review's decision on the customer's console page, beside the answers that made
 * the customer wait (docs/decisions/026): open the account, or reject the application. The page is
 * loaded again afterwards, so its decision and audit trail show what was done.
 */
function ConsoleReview({ customer, canOpen, canReject, rejected }: ConsoleReviewProps) {
  const [open, setOpen] = useState<"open" | "reject" | null>(null);
  // Cancel or Escape in either form give the keyboard back to the button that opened it.
  const place = useInPlace({ open: open !== null, setOpen: (shown) => !shown && setOpen(null) });
  const toggle = (which: "open" | "reject") => (event: { currentTarget: HTMLButtonElement }) => {
    if (open === which) return place.dismiss();
    place.showFrom(event.currentTarget);
    setOpen(which);
  };
  const done = () => location.reload();
  if (!canOpen && !canReject) return null;
  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap gap-2">
        {canOpen
          ? (
            <button
              type="button"
              className="btn-outline"
              aria-expanded={open === "open"}
              onClick={toggle("open")}
            >
              {rejected ? "Open the account (overrides the rejection)" : "Open the account"}
            </button>
          )
          : null}
        {canReject && !rejected
          ? (
            <button
              type="button"
              className="btn-outline"
              aria-expanded={open === "reject"}
              onClick={toggle("reject")}
            >
              Reject the application
            </button>
          )
          : null}
      </div>
      {open === "open"
        ? (
          <OpenAccountForm
            user={customer}
            overridesRejection={rejected}
            first={place.first}
            onCancel={place.dismiss}
            onOpened={done}
          />
        )
        : null}
      {open === "reject"
        ? <RejectForm customer={customer} first={place.first} onCancel={place.dismiss} onRejected={done} />
        : null}
    </div>
  );
}

export default withQueries(ConsoleReview);
