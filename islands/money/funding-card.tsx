/**
 * How the customer adds money: a bank transfer to the company's account, quoting their account_ref
 * (DESIGN.md section 4), with a button that copies the reference.
 */
import { useEffect, useRef, useState } from "react";
import { useHydrated } from "../ui/submit-button.tsx";
import type { Funding } from "./calls.ts";

/** How long "Copied" shows on the copy button. */
const COPIED_MS = 2000;

const MUTED = "text-neutral-600 dark:text-neutral-400";

export function FundingCard({ funding }: { funding: Funding & { account_ref: string } }) {
  const hydrated = useHydrated();
  const [copy, setCopy] = useState<"idle" | "copied" | "failed">("idle");
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  async function copyRef() {
    clearTimeout(timer.current);
    try {
      await navigator.clipboard.writeText(funding.account_ref);
      setCopy("copied");
      timer.current = setTimeout(() => setCopy("idle"), COPIED_MS);
    } catch {
      setCopy("failed");
    }
  }

  const { bank } = funding;
  const details: [string, string | null][] = [
    ["Bank", bank.name],
    ["Account name", bank.account_name],
    ["IBAN", bank.iban],
    ["BIC", bank.bic],
    ["Sort code", bank.sort_code],
    ["Account number", bank.account_number],
  ];
  return (
    <section aria-labelledby="funding-title" className="card space-y-4">
      <h2 id="funding-title" className="text-lg font-semibold">How to add money</h2>
      <p className="text-sm text-neutral-700 dark:text-neutral-300">
        Send a bank transfer to our account below, quoting your reference. We credit your balance when it arrives.
      </p>
      <div className="rounded-lg border-2 border-primary-600 bg-primary-50 p-4 dark:border-primary-400 dark:bg-neutral-950">
        <p className="text-sm font-medium text-neutral-800 dark:text-neutral-200">
          Your reference (always quote it)
        </p>
        <div className="mt-1 flex flex-wrap items-center gap-3">
          <p className="font-mono text-2xl font-bold tracking-wider text-neutral-900 select-all dark:text-white">
            {funding.account_ref}
          </p>
          <button
            type="button"
            onClick={copyRef}
            disabled={!hydrated}
            className="btn-outline"
            aria-label={`Copy the reference ${funding.account_ref}`}
          >
            {copy === "copied" ? "Copied" : "Copy"}
          </button>
        </div>
        <p role="status" className="mt-1 text-xs text-neutral-700 dark:text-neutral-300">
          {copy === "copied"
            ? "Reference copied."
            : copy === "failed"
            ? "Copying did not work here: select the reference and copy it."
            : ""}
        </p>
      </div>
      <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-2 text-sm">
        {details.filter(([, value]) => value).map(([label, value]) => (
          <div key={label} className="contents">
            <dt className={MUTED}>{label}</dt>
            <dd className="font-mono break-all">{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
