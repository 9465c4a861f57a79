import { eq } from "drizzle-orm";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { payments } from "../../db/schema-payments.ts";
import { may } from "../../lib/permissions.ts";
import type { AppEnv } from "../../server/env.ts";
import { NotFound } from "../../server/errors.ts";
import { balancesAnswer } from "../../server/money/balances.ts";
import { currencyList } from "../../server/money/currencies.ts";
import { allPendingPayments, listPayments, paymentWithTimeline } from "../../server/payments/read.ts";
import { PAYMENTS_PER_PAGE } from "../../islands/payments/list-query.ts";
import { recipientChoices } from "../../server/payments/recipient.ts";
import { PageTitle, Restricted } from "../layouts/parts.tsx";
import { PaymentForm, Payments, PendingPayment, PendingPayments } from "../islands.ts";
import { paymentActorOf, pendingPaymentsOfRequest } from "../payment-actor.ts";
import { switchToAccountOf } from "../switch-account.ts";

/** The payment screens (issue 8 items 2, 3 and 6): each loads what it shows, so the first paint is complete. */

export async function PaymentPage(c: Context<AppEnv>) {
  const { actor, accountRef } = await paymentActorOf(c);
  if (!may(actor.role, "payments.prepare")) {
    return (
      <>
        <PageTitle>Make a payment</PageTitle>
        <p className="card">
          Your role on this account does not allow making payments. An owner or an admin of the account can change it.
        </p>
      </>
    );
  }
  const db = c.get("db");
  const [balances, recipients] = await Promise.all([
    balancesAnswer(db, actor.accountId),
    recipientChoices(db, actor.accountId),
  ]);
  const asked = Number(c.req.query("recipient"));
  return (
    <>
      <PageTitle lead="Pay a recipient from one of your balances. You see the full cost before you confirm.">
        Make a payment
      </PageTitle>
      <Restricted where="form" />
      <div className="grid gap-6 lg:grid-cols-[2fr_1fr]">
        <PaymentForm
          accountRef={accountRef}
          currencies={currencyList()}
          balances={balances}
          recipients={recipients}
          recipientId={Number.isSafeInteger(asked) && asked > 0 ? asked : null}
          validitySeconds={c.get("config").quoteValiditySeconds}
        />
      </div>
    </>
  );
}

export async function PendingPaymentsPage(c: Context<AppEnv>) {
  const { actor, viewer, accountRef, actingFor } = await paymentActorOf(c);
  return (
    <>
      <PageTitle lead="Payments someone on your account prepared that wait for a second person's approval.">
        Pending payments
      </PageTitle>
      <PendingPayments
        accountRef={accountRef}
        actingFor={actingFor}
        payments={await allPendingPayments(c.get("db"), actor.accountId, viewer)}
      />
    </>
  );
}

/** Every payment of the account, newest first (issue 8 item 6); each row opens the payment's page. */
export async function PaymentsPage(c: Context<AppEnv>) {
  const { actor, viewer, accountRef, actingFor } = await paymentActorOf(c);
  const first = await listPayments(c.get("db"), actor.accountId, { page: 1, perPage: PAYMENTS_PER_PAGE }, viewer);
  return (
    <>
      <PageTitle lead="Every payment made from your account, newest first, with its status. Open one to see its timeline.">
        Payments
      </PageTitle>
      <Payments accountRef={accountRef} actingFor={actingFor} payments={first} />
    </>
  );
}

/** The payment's page, whatever its status now (links in emails keep working: decision 030). */
export async function PendingPaymentPage(c: Context<AppEnv>) {
  const { actor, viewer, accountRef, actingFor } = await paymentActorOf(c);
  let payment;
  try {
    payment = await paymentWithTimeline(c.get("db"), actor.accountId, Number(c.req.param("id")), viewer);
  } catch (error) {
    // Another account's payment is not found, like one that does not exist.
    if (error instanceof NotFound) throw new HTTPException(404, { message: "Page not found" });
    throw error;
  }
  return (
    <>
      <PageTitle
        lead={
          <>
            <a className="underline" href="/account/payments">All payments</a>
            {payment.status === "pending_approval"
              ? (
                <>
                  {" · "}
                  <a className="underline" href="/account/pendingpayments">All pending payments</a>
                </>
              )
              : null}
          </>
        }
      >
        Payment
      </PageTitle>
      <PendingPayment accountRef={accountRef} actingFor={actingFor} payment={payment} />
    </>
  );
}

/**
 * A link to a payment of another of the customer's accounts (the approval email opened while they
 * work on their personal account) switches to the payment's account (decision 060); any other
 * payment stays "not found", like one that does not exist.
 */
export const switchToPaymentsAccount = (c: Context<AppEnv>): Promise<Response | null> =>
  switchToAccountOf(c, async (db) => {
    const [payment] = await db.select({ accountId: payments.accountId }).from(payments)
      .where(eq(payments.id, Number(c.req.param("id"))));
    return payment?.accountId;
  });

/** The dashboard's card: what waits for approval on the account, for everyone who may see payments. */
export async function pendingCard(c: Context<AppEnv>) {
  const { actor, viewer, accountRef, actingFor } = await paymentActorOf(c);
  return (
    <PendingPayments
      accountRef={accountRef}
      actingFor={actingFor}
      payments={await pendingPaymentsOfRequest(c, actor.accountId, viewer)}
      compact
    />
  );
}
