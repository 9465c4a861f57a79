/**
 * On-behalf mode on the client (SPEC.md sections 3 and 4): the customer an administrator acts
 * for, kept in a cookie, and what setting or clearing it does. Shared by the banner every layout
 * shows in that mode (OnBehalfBanner) and the console's customer list that starts it. The build
 * puts it in one chunk with the banner (vite.config.ts, TOGETHER): pages in that mode load both
 * anyway, and one file weighs less than two.
 */
import { ApiCallError, errorText } from "./api.ts";
import { createPersistedStore, type PersistedStore } from "./user-store.ts";

/** The customer an administrator acts for (SPEC.md section 3: the on-behalf user has cc_contact). */
export interface OnBehalfCustomer {
  id: number;
  name: string;
  username: string;
  /** The customer's email, for the administrator's reference. */
  cc_contact?: string;
}

/** SPEC.md sections 4 and 9: on-behalf state persists, in a cookie keyed by the store id. */
export const onBehalfStore: PersistedStore<OnBehalfCustomer | null> = createPersistedStore<OnBehalfCustomer | null>(
  "onbehalf",
  null,
);

/**
 * Window event sent whenever on-behalf mode is set or cleared, detail `{customer, queryKey}`.
 * SPEC.md section 4 says pending payments are then reloaded: every island root has its own
 * QueryClient, so the pending-payments island (not built yet) listens for this event and calls
 * `queryClient.invalidateQueries({ queryKey: PENDING_PAYMENTS_QUERY_KEY })`.
 */
export const ON_BEHALF_EVENT = "portal:onbehalf";
export const PENDING_PAYMENTS_QUERY_KEY = ["account/pendingpayments/all"] as const;

/** The four fields kept from the answer of account/onbehalf (a SessionUser plus cc_contact). */
export function toCustomer(user: OnBehalfCustomer): OnBehalfCustomer {
  const customer: OnBehalfCustomer = { id: user.id, name: user.name, username: user.username };
  if (user.cc_contact) customer.cc_contact = user.cc_contact;
  return customer;
}

/** Records the mode on the client and asks for pending payments to be reloaded. */
export function setOnBehalf(customer: OnBehalfCustomer | null): void {
  if (customer) onBehalfStore.set(customer);
  else onBehalfStore.clear();
  globalThis.dispatchEvent?.(
    new CustomEvent(ON_BEHALF_EVENT, { detail: { customer, queryKey: PENDING_PAYMENTS_QUERY_KEY } }),
  );
}

/** What a failed set or clear says (SPEC.md section 8: a 401 is 'Bad credentials'). */
export function onBehalfError(err: unknown): string {
  return err instanceof ApiCallError && err.status === 401 ? "Bad credentials" : errorText(err);
}
