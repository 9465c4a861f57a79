import { useEffect, useRef, useState } from "react";
import { ON_BEHALF_CLEAR_DELAY_MS } from "../lib/constants.ts";
import { api, ApiCallError, isAbort, newIdempotencyKey } from "./lib/api.ts";
import { type OnBehalfCustomer, onBehalfError, onBehalfStore, setOnBehalf, toCustomer } from "./lib/on-behalf.ts";

export interface OnBehalfBannerProps {
  customer: OnBehalfCustomer | null;
  /** Where to go once the mode is cleared; null stays on the page. */
  navigateTo?: string | null;
}

/**
 * The banner an administrator sees on every page while acting on behalf of a customer. "Stop
 * acting on behalf" waits ON_BEHALF_CLEAR_DELAY_MS ("Leaving…"), then DELETE account/onbehalf,
 * reloads pending payments (ON_BEHALF_EVENT) and goes to the console's customer list. On mount it
 * asks account/onbehalf whether the mode still holds: a 404 clears it and hides the banner.
 */
export default function OnBehalfBanner({ customer, navigateTo = "/console/users" }: OnBehalfBannerProps) {
  const [current, setCurrent] = useState<OnBehalfCustomer | null>(customer);
  const [leaving, setLeaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const live = useRef(true);

  useEffect(() => {
    live.current = true;
    if (customer) onBehalfStore.set(customer);
    const known = customer ?? onBehalfStore.get();
    const controller = new AbortController();
    if (known) {
      api.get<OnBehalfCustomer>("account/onbehalf", undefined, { signal: controller.signal }).then(
        (answer) => {
          if (!answer) return;
          const fresh = toCustomer(answer);
          onBehalfStore.set(fresh);
          setCurrent(fresh);
        },
        (err) => {
          if (isAbort(err) || !(err instanceof ApiCallError) || err.status !== 404) return;
          onBehalfStore.clear();
          setCurrent(null);
        },
      );
    }
    return () => {
      live.current = false;
      controller.abort();
      globalThis.clearTimeout(timer.current);
    };
  }, []);

  if (!current) return null;

  function stop() {
    if (leaving) return;
    setLeaving(true);
    setError(null);
    timer.current = globalThis.setTimeout(async () => {
      try {
        await api.delete("account/onbehalf", { idempotencyKey: newIdempotencyKey() });
      } catch (err) {
        if (live.current) {
          setLeaving(false);
          setError(onBehalfError(err));
        }
        return;
      }
      setOnBehalf(null);
      if (!live.current) return;
      if (navigateTo) location.assign(navigateTo);
      else setCurrent(null);
    }, ON_BEHALF_CLEAR_DELAY_MS);
  }

  const who = current.cc_contact ? `${current.name} (${current.cc_contact})` : current.name;

  return (
    <section
      aria-label="Acting on behalf of a customer"
      className="border-b-4 border-amber-500 bg-amber-100 px-4 py-3 text-amber-950 dark:border-amber-400 dark:bg-amber-900 dark:text-amber-50"
    >
      <div className="mx-auto flex max-w-7xl flex-wrap items-center justify-between gap-3">
        <p className="text-sm font-semibold">
          <span aria-hidden="true">⚠</span>
          You are acting on behalf of {who}
        </p>
        <div className="flex items-center gap-3">
          {error ? <p role="alert" className="text-sm font-semibold text-red-800 dark:text-red-200">{error}</p> : null}
          <p role="status" className="sr-only">{leaving ? "Leaving on-behalf mode…" : ""}</p>
          <button
            type="button"
            onClick={stop}
            disabled={leaving}
            className="btn bg-amber-950 text-amber-50 hover:bg-amber-900 dark:bg-amber-50 dark:text-amber-950 dark:hover:bg-amber-100"
          >
            {leaving ? "Leaving…" : "Stop acting on behalf"}
          </button>
        </div>
      </div>
    </section>
  );
}
