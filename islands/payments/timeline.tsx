/** A payment's timeline: who did what and when, and on whose behalf. */
import type { PaymentWithTimeline } from "./calls.ts";

const WHAT: Record<PaymentWithTimeline["events"][number]["event"], string> = {
  created: "Prepared",
  approval_requested: "Approval asked for",
  approved: "Approved",
  rejected: "Rejected",
  cancelled: "Cancelled",
  submitted: "Sent to the recipient's bank",
  exported: "Sent in a bank file",
  completed: "Arrived",
  failed: "Failed",
};

/** The payout desk's steps are the company's: the customer is not told which of our staff. */
const DESK = new Set(["submitted", "exported", "completed", "failed"]);

export const when = (iso: string) =>
  new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }) + " UTC";

export function Timeline({ events }: { events: PaymentWithTimeline["events"] }) {
  return (
    <ol className="space-y-3 border-l-2 border-neutral-200 pl-4 dark:border-neutral-700" aria-label="Timeline">
      {events.map((e, i) => (
        <li key={i} className="text-sm">
          <p className="font-semibold">{WHAT[e.event]}</p>
          <p className="text-neutral-600 dark:text-neutral-300">
            {when(e.at)}
            {DESK.has(e.event) ? " · by our payout desk" : e.actor ? ` · by ${e.actor.name}` : ""}
            {e.on_behalf_admin ? ` (done by ${e.on_behalf_admin.name} of our team, on their behalf)` : ""}
          </p>
          {e.note ? <p className="mt-1">{e.note}</p> : null}
        </li>
      ))}
    </ol>
  );
}
