/**
 * How the customer adds money: a bank transfer to the company's account, quoting their account_ref
 * (DESIGN.md section 4). Every detail has a button that copies it as a bank's form wants it (an IBAN
 * without spaces); the IBAN shows in groups of four, which wrap between groups on a narrow screen.
 * While the details are the built-in test ones, the card says so in the customer's words (what to
 * set is the operator's business: the start-up log names the settings).
 */
import { useEffect, useRef, useState } from "react";
import { useHydrated } from "../ui/submit-button.tsx";
import type { Funding } from "./calls.ts";

/** How long "Copied" shows on a copy button. */
const COPIED_MS = 2000;

const MUTED = "text-neutral-600 dark:text-neutral-400";

/** "GB33BUKB20201555555555" → "GB33 BUKB 2020 1555 5555 55", as IBANs are printed (ISO 13616). */
export function ibanGroups(iban: string): string {
  return iban.replace(/\s+/g, "").replace(/(.{4})(?=.)/g, "$1 ");
}

type Copied = { label: string; what: string; ok: boolean } | null;

function CopyButton({ label, what, value, hydrated, copied, onCopy, className = "btn-ghost" }: {
  /** The detail's name: "IBAN". */
  label: string;
  /** What is copied, in a sentence: "the IBAN". */
  what: string;
  value: string;
  hydrated: boolean;
  copied: Copied;
  onCopy: (copied: { label: string; what: string }, value: string) => void;
  className?: string;
}) {
  const done = copied?.ok && copied.label === label;
  return (
    <button
      type="button"
      onClick={() => onCopy({ label, what }, value)}
      disabled={!hydrated}
      className={`${className} shrink-0`}
      aria-label={`Copy ${what}`}
    >
      {done ? "Copied" : "Copy"}
    </button>
  );
}

export function FundingCard({ funding }: { funding: Funding & { account_ref: string } }) {
  const hydrated = useHydrated();
  const [copied, setCopied] = useState<Copied>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  async function copy(which: { label: string; what: string }, value: string) {
    clearTimeout(timer.current);
    try {
      await navigator.clipboard.writeText(value);
      setCopied({ ...which, ok: true });
      timer.current = setTimeout(() => setCopied(null), COPIED_MS);
    } catch {
      setCopied({ ...which, ok: false });
    }
  }

  const { bank } = funding;
  // [label, what the copy button copies, as shown, as copied]
  const details: [string, string, string, string][] = [
    ["Bank", "the bank's name", bank.name, bank.name],
    ["Account name", "the account name", bank.account_name, bank.account_name],
    ["IBAN", "the IBAN", ibanGroups(bank.iban), bank.iban.replace(/\s+/g, "")],
    ["BIC", "the BIC", bank.bic, bank.bic],
    ["Sort code", "the sort code", bank.sort_code, bank.sort_code],
    ["Account number", "the account number", bank.account_number, bank.account_number],
  ];
  const button = { hydrated, copied, onCopy: copy };
  return (
    <section aria-labelledby="funding-title" className="card space-y-4">
      <h2 id="funding-title" className="text-lg font-semibold">How to add money</h2>
      {bank.test
        ? (
          <p
            className="rounded-lg border border-amber-600 bg-amber-50 p-3 text-sm text-amber-900 dark:bg-neutral-950 dark:text-amber-200"
            data-test-bank-details
          >
            <strong>These are test bank details.</strong>{" "}
            This portal is not connected to a real bank account yet: do not send money to them, it would not reach your
            balance.
          </p>
        )
        : null}
      <p className="text-sm text-neutral-700 dark:text-neutral-300">
        Send a bank transfer to our account below, quoting your reference. We credit your balance when it arrives.
      </p>
      <div className="rounded-lg border-2 border-primary-600 bg-primary-50 p-4 dark:border-primary-400 dark:bg-neutral-950">
        <p className="text-sm font-medium text-neutral-800 dark:text-neutral-200">
          Your reference (always quote it)
        </p>
        <div className="mt-1 flex flex-wrap items-center gap-3">
          <p className="font-mono text-2xl font-bold tracking-wider break-all text-neutral-900 select-all dark:text-white">
            {funding.account_ref}
          </p>
          <CopyButton
            label="Reference"
            what={`the reference ${funding.account_ref}`}
            value={funding.account_ref}
            className="btn-outline"
            {...button}
          />
        </div>
      </div>
      {/* Each detail: its name above it, the value and its copy button on one line (a phone has room). */}
      <dl className="divide-y divide-neutral-200 text-sm dark:divide-neutral-800">
        {details.filter(([, , shown]) => shown).map(([label, what, shown, value]) => (
          <div key={label} className="py-2">
            <dt className={`text-xs ${MUTED}`}>{label}</dt>
            <dd className="flex items-center justify-between gap-3">
              {/* Wraps only at spaces (between the IBAN's groups); a word longer than the line still wraps. */}
              <span className="min-w-0 font-mono break-words">{shown}</span>
              <CopyButton label={label} what={what} value={value} {...button} />
            </dd>
          </div>
        ))}
      </dl>
      <p role="status" className="min-h-4 text-xs text-neutral-700 dark:text-neutral-300">
        {!copied
          ? ""
          : copied.ok
          ? `${copied.label} copied.`
          : `Copying did not work here: select ${copied.what} and copy it.`}
      </p>
    </section>
  );
}
