import { useEffect, useRef, useState } from "react";
import { api, isAbort } from "./lib/api.ts";
import { type BalanceRow, BalanceTable } from "./lib/balance-table.tsx";

/** GET account/funding: how the customer adds money. */
export interface Funding {
  account_ref: string;
  bank: {
    name: string;
    account_name: string;
    iban: string | null;
    bic: string | null;
    sort_code: string | null;
    account_number: string | null;
  };
}

export interface BalancesProps {
  balances: BalanceRow[];
  funding: Funding | null;
  /** Only the table (a dashboard); the funding card still shows while there is no money. */
  compact?: boolean;
}

/** The window event after which the balances are fetched again (ConvertForm dispatches it). */
export const BALANCES_CHANGED_EVENT = "portal:balances-changed";
/** A read cut by another island's write (the request batch) is asked again, at most this often. */
const MAX_ABORT_RETRIES = 3;
/** How long "Copied" shows on the copy button. */
const COPIED_MS = 2000;

const MUTED = "text-neutral-600 dark:text-neutral-400";

/**
 * The customer's balances: every currency held, available and held amounts, refreshed
 * (GET account/balances) whenever BALANCES_CHANGED_EVENT fires on window. Unless compact, a card
 * says how to add money: a bank transfer to the company's account quoting the account_ref.
 */
export default function Balances({ balances: initial, funding, compact = false }: BalancesProps) {
  const [balances, setBalances] = useState(initial);
  const [loading, setLoading] = useState(false);
  const [status, setStatus] = useState("");

  useEffect(() => {
    let controller: AbortController | null = null;
    async function refresh(retries = 0): Promise<void> {
      const mine = new AbortController();
      controller = mine;
      setLoading(true);
      try {
        const rows = await api.get<BalanceRow[]>("account/balances", undefined, { signal: mine.signal });
        if (mine.signal.aborted) return;
        setBalances(rows ?? []);
        setStatus("Balances updated.");
      } catch (err) {
        if (mine.signal.aborted) return; // a newer refresh or the unmount took over
        if (isAbort(err) && retries < MAX_ABORT_RETRIES) return refresh(retries + 1);
        setStatus("The balances could not be updated. Reload the page to see them.");
      }
      setLoading(false);
    }
    const onChange = () => {
      controller?.abort();
      void refresh();
    };
    globalThis.addEventListener(BALANCES_CHANGED_EVENT, onChange);
    return () => {
      globalThis.removeEventListener(BALANCES_CHANGED_EVENT, onChange);
      controller?.abort();
    };
  }, []);

  return (
    <div className="space-y-6">
      <BalanceTable balances={balances} busy={loading} status={status} />
      {funding && (!compact || balances.length === 0) ? <FundingCard funding={funding} /> : null}
    </div>
  );
}

function FundingCard({ funding }: { funding: Funding }) {
  // The copy button waits for hydration (forms.tsx's useHydrated, without loading that chunk here).
  const [hydrated, setHydrated] = useState(false);
  const [copy, setCopy] = useState<"idle" | "copied" | "failed">("idle");
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    setHydrated(true);
    return () => clearTimeout(timer.current);
  }, []);

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
            className="btn-ghost border border-neutral-300 dark:border-neutral-700"
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
