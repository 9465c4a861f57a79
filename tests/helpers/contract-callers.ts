/**
 * Someone each call's guards let through to its validation, on a real app with real sessions: for
 * the tests that send every call bad input (tests/integration/contract-refusals.test.ts,
 * json-bodies.test.ts, ids.test.ts).
 */
import type { CallContract } from "../../lib/contracts/define.ts";
import { type Admin, createAdmin, type Customer, registerCustomer, signinApp, TestClient } from "./client.ts";
import { type OpenCustomer, openCustomer } from "./money.ts";

export type CallersApp = Awaited<ReturnType<typeof signinApp>>;

export interface Callers {
  t: CallersApp;
  admin: Admin;
  /** Registered and validated, no profile yet. */
  personal: Customer;
  business: Customer;
  /** With an open account. */
  open: OpenCustomer;
  /** Who may make `contract`'s call (for the profile, a customer of the given type). */
  callerOf(contract: CallContract, as?: "Personal" | "Business"): TestClient;
  /** The call's path under /api/, without the leading slash, each parameter an existing customer's id. */
  pathOf(contract: CallContract): string;
}

export async function callers(): Promise<Callers> {
  const t = await signinApp();
  const admin = await createAdmin(t);
  const personal = await registerCustomer(t, { type: "Personal" });
  const business = await registerCustomer(t, { type: "Business" });
  const open = await openCustomer(t);
  return {
    t,
    admin,
    personal,
    business,
    open,
    callerOf(contract, as) {
      const guards: readonly string[] = contract.guards;
      if (guards.includes("is-admin")) return admin.client;
      if (guards.includes("has-account") || guards.includes("has-profile")) return open.client;
      if (guards.includes("loggedin")) return as === "Business" ? business.client : personal.client;
      return new TestClient(t);
    },
    pathOf: (contract) => contract.path.slice(1).replace(/:\w+/g, String(personal.id)),
  };
}
