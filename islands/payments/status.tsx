/** A payment's status in words, with a colour that never carries the meaning alone. */
import { STATUS_NAMES } from "../../lib/payments/statuses.ts";
import type { Payment } from "./calls.ts";

const TONE: Record<Payment["status"], string> = {
  draft: "bg-neutral-100 text-neutral-800 dark:bg-neutral-800 dark:text-neutral-100",
  pending_approval: "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-50",
  approved: "bg-sky-100 text-sky-900 dark:bg-sky-900 dark:text-sky-50",
  submitted: "bg-sky-100 text-sky-900 dark:bg-sky-900 dark:text-sky-50",
  completed: "bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-50",
  rejected: "bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-50",
  cancelled: "bg-neutral-100 text-neutral-800 dark:bg-neutral-800 dark:text-neutral-100",
  failed: "bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-50",
};

export function StatusBadge({ status }: { status: Payment["status"] }) {
  return (
    <span
      data-status={status}
      className={`inline-block rounded-full px-2.5 py-0.5 text-xs font-semibold whitespace-nowrap ${TONE[status]}`}
    >
      {STATUS_NAMES[status]}
    </span>
  );
}
