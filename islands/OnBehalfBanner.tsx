import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { ON_BEHALF_CLEAR_DELAY_MS } from "../lib/constants.ts";
import { api, statusOf } from "./lib/api.ts";
import {
  getOnBehalf,
  type OnBehalfCustomer,
  onBehalfError,
  onBehalfStore,
  setOnBehalf,
  stopOnBehalf,
  toCustomer,
} from "./lib/on-behalf.ts";
import { withQueries } from "./lib/query-client.tsx";
import { onBehalfKeys } from "./lib/query-keys.ts";
import { useWrite } from "./lib/write.ts";

export interface OnBehalfBannerProps {
  customer: OnBehalfCustomer | null;
  /** Where to go once the mode is cleared; null stays on the page. */
  navigateTo?: string | null;
}

/** The mode as the server holds it: the customer, or null when none (a 404). */
async function currentMode(signal: AbortSignal): Promise<OnBehalfCustomer | null> {
  try {
    const customer = toCustomer(await api.send(getOnBehalf, {}, { signal }));
    onBehalfStore.set(customer);
    return customer;
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
    onBehalfStore.clear();
    return null;
  }
}

/**
 * The banner an administrator sees on every page while acting on behalf of a customer. "Stop
 * acting on behalf" waits ON_BEHALF_CLEAR_DELAY_MS ("Leaving…"), then DELETE account/onbehalf,
 * reloads pending payments and goes to the console's customer list. On arrival it asks
 * account/onbehalf whether the mode still holds (the query starts from the page's customer, but as
 * out of date): a 404 clears it and hides the banner.
 */
function OnBehalfBanner({ customer, navigateTo = "/console/users" }: OnBehalfBannerProps) {
  const queries = useQueryClient();
  // The page's customer, else the one this browser remembers: either way, asked about again.
  const [known] = useState(() => customer ?? (typeof document === "undefined" ? null : onBehalfStore.get()));
  const mode = useQuery({
    queryKey: onBehalfKeys.current,
    queryFn: ({ signal }) => currentMode(signal),
    enabled: known !== null,
    // What the server rendered: the banner shows nothing else until the answer.
    initialData: customer,
    initialDataUpdatedAt: 0,
    retry: false,
  });
  const [leaving, setLeaving] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const stop = useWrite({
    call: stopOnBehalf,
    idempotent: true,
    onSuccess() {
      setOnBehalf(null, queries);
      if (navigateTo) location.assign(navigateTo);
    },
  });

  useEffect(() => {
    if (customer) onBehalfStore.set(customer);
    return () => clearTimeout(timer.current);
  }, []);

  const current = mode.data;
  if (!current) return null;

  function leave() {
    if (leaving) return;
    setLeaving(true);
    stop.reset();
    timer.current = setTimeout(() => {
      stop.mutate({}, { onError: () => setLeaving(false) });
    }, ON_BEHALF_CLEAR_DELAY_MS);
  }

  const who = current.cc_contact ? `${current.name} (${current.cc_contact})` : current.name;
  const error = stop.error ? onBehalfError(stop.error) : null;

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
            onClick={leave}
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

export default withQueries(OnBehalfBanner);
