/**
 * On-behalf mode on the client (SPEC.md sections 3 and 4): the customer an administrator acts
 * for, kept in a cookie, and what setting or clearing it does. Shared by the banner every layout
 * shows in that mode (OnBehalfBanner) and the console's customer list that starts it. The build
 * puts it in one chunk with the banner (vite.config.ts, TOGETHER): pages in that mode load both
 * anyway, and one file weighs less than two.
 */
import type { QueryClient } from "@tanstack/react-query";
import type * as admin from "../../lib/contracts/admin.ts";
import { ApiCallError, call, errorText } from "./api.ts";
import { onBehalfKeys, pendingPaymentKeys } from "./query-keys.ts";
import { createPersistedStore, type PersistedStore } from "./user-store.ts";

/** The customer an administrator acts for (SPEC.md section 3: the on-behalf user has cc_contact). */
export interface OnBehalfCustomer {
  id: number;
  name: string;
  username: string;
  /** The customer's email, for the administrator's reference. */
  cc_contact?: string;
}

/** Where "Act on behalf" goes: a full page load, so the layout renders the banner. */
export const ACT_ON_BEHALF_TARGET = "/account";

export const getOnBehalf = call<typeof admin.currentOnBehalf>("GET", "/account/onbehalf");
export const startOnBehalf = call<typeof admin.startOnBehalf>("POST", "/account/onbehalf");
export const stopOnBehalf = call<typeof admin.stopOnBehalf>("DELETE", "/account/onbehalf");

/** SPEC.md sections 4 and 9: on-behalf state persists, in a cookie keyed by the store id. */
export const onBehalfStore: PersistedStore<OnBehalfCustomer | null> = createPersistedStore<OnBehalfCustomer | null>(
  "onbehalf",
  null,
);

/** The four fields kept from the answer of account/onbehalf (a SessionUser plus cc_contact). */
export function toCustomer(user: OnBehalfCustomer): OnBehalfCustomer {
  const customer: OnBehalfCustomer = { id: user.id, name: user.name, username: user.username };
  if (user.cc_contact) customer.cc_contact = user.cc_contact;
  return customer;
}

/**
 * Records the mode on the client. SPEC.md section 4: pending payments are then reloaded, which on
 * this page means their queries (and the mode's own) are refreshed.
 */
export function setOnBehalf(customer: OnBehalfCustomer | null, queries: QueryClient): void {
  if (customer) onBehalfStore.set(customer);
  else onBehalfStore.clear();
  queries.setQueryData(onBehalfKeys.current, customer);
  void queries.invalidateQueries({ queryKey: pendingPaymentKeys.all });
}

/** What a failed set or clear says (SPEC.md section 8: a 401 is 'Bad credentials'). */
export function onBehalfError(err: unknown): string {
  return err instanceof ApiCallError && err.status === 401 ? "Bad credentials" : errorText(err);
}
