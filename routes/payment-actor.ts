import type { Context } from "hono";
import { currentAccount } from "../server/accounts/current.ts";
import { personNameOf } from "../server/accounts/members.ts";
import type { AppEnv } from "../server/env.ts";
import type { Viewer } from "../server/payments/answer.ts";
import { allPendingPayments } from "../server/payments/read.ts";
import type { Person } from "../server/payments/people.ts";
import type { PaymentActor } from "../server/payments/transitions.ts";

/**
 * Who acts on a payment, on which account and with which role, for the payment calls and pages:
 * the customer (an administrator acting on their behalf acts as them, recorded as such), what they
 * may see, and the person already at hand for the answers.
 */
export async function paymentActorOf(
  c: Context<AppEnv>,
): Promise<{ actor: PaymentActor; viewer: Viewer; known: Person[]; accountRef: string; actingFor: number | null }> {
  const { accountId, accountRef, customer, role } = await currentAccount(c);
  const admin = c.get("onBehalf") ? c.get("user") : null;
  // Who acts is a person, also on a business account (the session names the business): one read.
  const name = await personNameOf(c.get("db"), customer.id);
  return {
    actor: { accountId, userId: customer.id, name, role, onBehalfAdminId: admin?.id ?? null },
    viewer: { userId: customer.id, role, onBehalf: admin !== null, now: new Date(c.get("services").now()) },
    known: [{ id: customer.id, name, email: customer.username }],
    accountRef,
    /** For an administrator on behalf: the customer (the islands stop reading once the mode ends). */
    actingFor: admin ? customer.id : null,
  };
}

const pendingPerRequest = new WeakMap<Request, ReturnType<typeof allPendingPayments>>();

/**
 * The account's payments waiting for approval, read once per request: the dashboard shows them in
 * two cards (all of them, and those waiting for this viewer), and each read answers the same.
 */
export function pendingPaymentsOfRequest(
  c: Context<AppEnv>,
  accountId: number,
  viewer: Viewer,
): ReturnType<typeof allPendingPayments> {
  let found = pendingPerRequest.get(c.req.raw);
  if (!found) pendingPerRequest.set(c.req.raw, found = allPendingPayments(c.get("db"), accountId, viewer));
  return found;
}
