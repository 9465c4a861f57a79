import { eq } from "drizzle-orm";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { payments } from "../../db/schema-payments.ts";
import { may } from "../../lib/permissions.ts";
import type { Database } from "../../db/client.ts";
import { accounts } from "../../db/schema.ts";
import { accountChoice, customerOf, type Membership } from "../../server/accounts/current.ts";
import { noLongerUser, removedFrom } from "../../server/accounts/removed.ts";
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
import { otherAccountOf, switchToAccountOf } from "../switch-account.ts";

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
    if (!(error instanceof NotFound)) throw error;
    // A payment of another of the person's accounts that did not switch (decision 060): the page was
    // loaded again after they switched away from it in another window. It says where the payment is
    // and lets them go back to it; their choice stands until they do.
    const other = await otherAccountOf(c, paymentsAccount(c));
    if (other) return await paymentOnAnotherAccount(c, other);
    // An old email's link, opened by someone since removed from the payment's account: they knew of
    // the payment already, so the page says why it is not shown rather than that it does not exist.
    const left = await accountLeft(c);
    if (left) return paymentOfAccountLeft(c, left);
    // Another account's payment is not found, like one that does not exist.
    throw new HTTPException(404, { message: "Page not found" });
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

/** The account of the payment the page's address names (undefined: no such payment). */
const paymentsAccount = (c: Context<AppEnv>) => async (db: Database) => {
  const [payment] = await db.select({ accountId: payments.accountId }).from(payments)
    .where(eq(payments.id, Number(c.req.param("id"))));
  return payment?.accountId;
};

/** The payment's account, when the customer (not an administrator on behalf) was removed from it. */
async function accountLeft(c: Context<AppEnv>): Promise<{ name: string; ref: string } | null> {
  const customer = customerOf(c);
  if (c.get("onBehalf") || !customer) return null;
  const [row] = await c.get("db").select({ ref: accounts.accountRef }).from(payments)
    .innerJoin(accounts, eq(accounts.id, payments.accountId))
    .where(eq(payments.id, Number(c.req.param("id"))));
  const name = row ? await removedFrom(c.get("db"), customer.id, row.ref) : null;
  return name ? { name, ref: row.ref } : null;
}

/** A payment's page for someone removed from its account: why it is not shown, and nothing of it. */
function paymentOfAccountLeft(c: Context<AppEnv>, left: { name: string; ref: string }) {
  c.status(404);
  return (
    <>
      <PageTitle lead={<a className="underline" href="/account/payments">All payments</a>}>Payment</PageTitle>
      <div className="card">
        <p>{`${noLongerUser(left.name, left.ref)}. Its payments are no longer shown to you.`}</p>
      </div>
    </>
  );
}

/**
 * A payment's page, loaded again for the account the person switched to in another window, when the
 * payment is on the account they left: which account it is on, and a link that switches back to it
 * (the payment's own address, which a person following it switches with, decision 060). Awaited by
 * the page, not rendered as a component: renderToString takes no async components.
 */
async function paymentOnAnotherAccount(c: Context<AppEnv>, account: Membership) {
  const { current } = await accountChoice(c);
  return (
    <>
      <PageTitle lead={<a className="underline" href="/account/payments">All payments</a>}>Payment</PageTitle>
      <div className="card flex flex-col items-start gap-4" data-payment-elsewhere={account.accountRef}>
        <p>
          {`This payment is on ${account.name} (${account.accountRef}), not on ${current?.name} ` +
            `(${current?.accountRef}), the account you are working on now. Nothing was done to it here.`}
        </p>
        {/* Preloading it would switch nothing (a fetch ahead never does) and warm nothing useful. */}
        <a className="btn-primary" href={c.req.path} data-no-preload>
          {`Switch to ${account.name} and open the payment`}
        </a>
      </div>
    </>
  );
}

/**
 * A link to a payment of another of the customer's accounts (the approval email opened while they
 * work on their personal account) switches to the payment's account (decision 060); any other
 * payment stays "not found", like one that does not exist.
 */
export const switchToPaymentsAccount = (c: Context<AppEnv>): Promise<Response | null> =>
  switchToAccountOf(c, paymentsAccount(c));

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
