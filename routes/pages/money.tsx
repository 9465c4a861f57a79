import type { Context } from "hono";
import { z } from "zod";
import { readAmount } from "../../lib/money/amounts.ts";
import { isCurrency } from "../../lib/money/currencies.ts";
import { may } from "../../lib/permissions.ts";
import { accountChoice, currentAccount, customerOf } from "../../server/accounts/current.ts";
import type { AppEnv } from "../../server/env.ts";
import { balancesAnswer, latestMovements } from "../../server/money/balances.ts";
import { priceQuote } from "../../server/money/conversions.ts";
import { currencyList } from "../../server/money/currencies.ts";
import { MoneyError } from "../../server/money/errors.ts";
import { companyBankDetails } from "../../server/money/funding.ts";
import { listPlans } from "../../server/money/plans.ts";
import { accountFeeOverrides } from "../../server/money/fee-overrides.ts";
import { quoteAnswer } from "../../server/money/quote.ts";
import { ratesFor } from "../../server/money/rates.ts";
import { listReceipts } from "../../server/money/receipts.ts";
import { utcDay } from "../../server/money/rate-sanity.ts";
import { currentRates } from "../../server/money/store.ts";
import { Balances, Calculator, ConsolePricingPlans, ConsoleRates, ConsoleReceipts, ConvertForm } from "../islands.ts";
import { PageTitle, Restricted } from "../layouts/parts.tsx";
import { AllTransactionsLink, approvalsForYouCard } from "./dashboard-transactions.tsx";
import { pendingCard } from "./payments.tsx";
import { somethingWaitsForApproval } from "../../server/payments/read.ts";
import { firedRateAlertsCard } from "./ratealerts.tsx";
import { recentNotificationsCard } from "./notifications.tsx";
import { ScrollBox } from "../../islands/ui/table.tsx";

/** The money screens: each loads what it shows on the server, so the first paint is complete. */

/**
 * What the calculator's address may preset (/calculator?sell=USD&amount=500). Nothing here is
 * refused: a price the values cannot make simply is not shown until the visitor changes them.
 */
const calculatorQuery = z.object({
  sell: z.string().trim().toUpperCase().default("GBP"),
  buy: z.string().trim().toUpperCase().default("EUR"),
  amount: z.string().trim().default("1000.00"),
  fixed: z.enum(["sell", "buy"]).catch("sell"),
});

export async function CalculatorPage(c: Context<AppEnv>) {
  const db = c.get("db");
  const { sell, buy, amount, fixed } = calculatorQuery.parse(c.req.query());
  const table = await currentRates(db);
  const customer = customerOf(c);
  const signedIn = !!customer?.account;
  let first = null;
  try {
    // A customer who has not chosen among several accounts yet sees the default plan's prices.
    // The account holder's overrides, whoever of its members looks (decision 064).
    const accountId = signedIn ? (await accountChoice(c)).current?.accountId ?? null : null;
    const who = { accountId, overrides: accountId === null ? null : await accountFeeOverrides(db, accountId) };
    first = quoteAnswer(
      await priceQuote(
        db,
        { sell, buy, amount, fixed },
        who,
        new Date(c.get("services").now()),
        c.get("config").quoteValiditySeconds * 1000,
      ),
    );
  } catch (error) {
    if (!(error instanceof MoneyError)) throw error;
  }
  return (
    <section className="mx-auto max-w-xl">
      <PageTitle lead="What it costs to send money abroad with us: our rate, our fee, and what arrives.">
        Currency calculator
      </PageTitle>
      <Calculator
        currencies={currencyList()}
        initial={{ sell, buy, amount, fixed }}
        signedIn={signedIn}
        quote={first}
        rates={{ as_of: table.as_of, source: table.source, indicative: table.source === "indicative" }}
      />
    </section>
  );
}

/** A table of the account's latest movements (server-rendered: no script needed). */
function Movements({ items }: { items: Awaited<ReturnType<typeof latestMovements>> }) {
  if (!items.length) return <p className="text-neutral-600 dark:text-neutral-400">No movements yet.</p>;
  // On a phone the table scrolls in its own box, not the page.
  return (
    <ScrollBox label="Latest movements">
      <table className="w-full text-left text-sm">
        <thead className="text-neutral-600 dark:text-neutral-400">
          <tr>
            <th scope="col" className="py-2 pr-4 font-medium">Date</th>
            <th scope="col" className="py-2 pr-4 font-medium">What</th>
            <th scope="col" className="py-2 text-right font-medium">Amount</th>
          </tr>
        </thead>
        <tbody>
          {items.map((m) => (
            <tr key={m.id} className="border-t border-neutral-200 dark:border-neutral-800">
              <td className="py-2 pr-4 whitespace-nowrap">{m.created_at.slice(0, 10)}</td>
              <td className="py-2 pr-4">{m.description}</td>
              <td
                className={`py-2 text-right font-mono whitespace-nowrap ${
                  m.amount.startsWith("-") ? "" : "text-green-800 dark:text-green-400"
                }`}
              >
                {m.amount.startsWith("-") ? m.amount : `+${m.amount}`} {m.currency}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}

export async function DashboardPage(c: Context<AppEnv>) {
  const { accountId, accountRef, accountName, accountType, customer, role } = await currentAccount(c);
  // Approval rules are for business accounts (decision 030): a personal account has one user and
  // no rule there can ask for approval (server/payments/approval-rules.ts), so its approval cards
  // would only ever say "0". Shown all the same if one of its payments waits: never out of sight.
  const approval = accountType === "Business" || await somethingWaitsForApproval(c.get("db"), accountId);
  const [balances, movements, pending, approvals] = await Promise.all([
    balancesAnswer(c.get("db"), accountId),
    latestMovements(c.get("db"), accountId, 10),
    approval ? pendingCard(c) : null,
    approval ? approvalsForYouCard(c) : null,
  ]);
  const pay = may(role, "payments.prepare") && <a className="btn-primary" href="/account/payment">Make a payment</a>;
  return (
    <>
      <PageTitle lead={`${accountName} · account ${accountRef}`}>Hello, {customer.name}</PageTitle>
      {/* grid-cols-1 (minmax(0, 1fr)): a wide table scrolls in its card instead of widening the page. */}
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <section aria-labelledby="balances-heading" className="card">
          <h2 id="balances-heading" className="mb-4 text-lg font-semibold">Balances</h2>
          <Balances
            accountRef={accountRef}
            balances={balances}
            funding={{ account_ref: accountRef, bank: companyBankDetails() }}
            compact
          />
          <div className="mt-4 flex gap-2">
            {may(role, "money.convert") && <a className="btn-primary" href="/account/convert">Convert</a>}
            {approval ? null : pay}
            <a className="btn-ghost" href="/account/balances">All balances</a>
          </div>
        </section>
        <section aria-labelledby="movements-heading" className="card">
          <h2 id="movements-heading" className="mb-4 text-lg font-semibold">Latest movements</h2>
          <Movements items={movements} />
          <AllTransactionsLink />
        </section>
        {approvals}
        {approval && (
          <section aria-labelledby="pending-heading" className="card lg:col-span-2">
            <h2 id="pending-heading" className="mb-4 text-lg font-semibold">Waiting for approval</h2>
            {pending}
            <div className="mt-4 flex gap-2">
              {pay}
              <a className="btn-ghost" href="/account/pendingpayments">All pending payments</a>
            </div>
          </section>
        )}
        {await firedRateAlertsCard(c.get("db"), accountId)}
        {await recentNotificationsCard(c.get("db"), customer.id, accountId)}
      </div>
    </>
  );
}

export async function BalancesPage(c: Context<AppEnv>) {
  const { accountId, accountRef } = await currentAccount(c);
  return (
    <>
      <PageTitle lead="Every currency you hold, and how to add money.">Balances</PageTitle>
      <Balances
        accountRef={accountRef}
        balances={await balancesAnswer(c.get("db"), accountId)}
        funding={{ account_ref: accountRef, bank: companyBankDetails() }}
      />
    </>
  );
}

/**
 * Where the convert form starts when the page is opened with a query (the calculator's "Convert
 * now": sell, buy, fixed, amount). A link is not a form: what is not valid (a currency we do not
 * support, the same currency twice, an amount the currency cannot have) is ignored, not refused.
 */
export function convertStart(query: Record<string, string | undefined>) {
  const code = (value: string | undefined) => {
    const upper = value?.trim().toUpperCase();
    return isCurrency(upper) ? upper : undefined;
  };
  const sell = code(query.sell);
  const buy = code(query.buy) === sell ? undefined : code(query.buy);
  const fixed = query.fixed === "buy" && buy
    ? "buy" as const
    : query.fixed === "sell" && sell
    ? "sell" as const
    : undefined;
  const currency = fixed === "buy" ? buy : fixed === "sell" ? sell : undefined;
  const reading = currency && query.amount !== undefined ? readAmount(currency, query.amount) : undefined;
  const amount = reading?.minor !== undefined && reading.minor > 0 ? query.amount!.trim() : undefined;
  return { sell, buy, fixed: amount ? fixed : undefined, amount };
}

export async function ConvertPage(c: Context<AppEnv>) {
  const { accountId, accountRef, role } = await currentAccount(c);
  if (!may(role, "money.convert")) {
    return (
      <>
        <PageTitle>Convert</PageTitle>
        <p className="card" role="status">
          As {role === "approver" ? "an approver" : "a viewer"}{" "}
          on this account you cannot convert between its balances. An owner, admin or payer can.
        </p>
      </>
    );
  }
  const balances = await balancesAnswer(c.get("db"), accountId);
  return (
    <>
      <PageTitle lead="Convert between your balances at a quoted rate.">Convert</PageTitle>
      <Restricted where="form" />
      {/* The form and, beside it, the balances it keeps up to date: one island for both. */}
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
        <ConvertForm
          currencies={currencyList()}
          accountRef={accountRef}
          balances={balances}
          validitySeconds={c.get("config").quoteValiditySeconds}
          start={convertStart(c.req.query())}
        />
      </div>
    </>
  );
}

export async function ConsoleReceiptsPage(c: Context<AppEnv>) {
  return (
    <section>
      <PageTitle lead="Money received in our bank accounts. A reference with an account_ref credits the account at once.">
        Receipts
      </PageTitle>
      <ConsoleReceipts receipts={await listReceipts(c.get("db"))} currencies={currencyList()} />
    </section>
  );
}

export async function ConsolePricingPage(c: Context<AppEnv>) {
  const db = c.get("db");
  const [plans, table] = await Promise.all([listPlans(db), currentRates(db)]);
  return (
    <section className="flex flex-col gap-8">
      <div>
        <PageTitle lead="Markup by amount tier, and transfer fees per currency. Every account is on a plan; the default applies otherwise.">
          Pricing plans
        </PageTitle>
        <ConsolePricingPlans plans={plans} currencies={currencyList()} />
      </div>
      <div>
        <h2 className="mb-2 text-xl font-semibold">Rates</h2>
        <ConsoleRates
          rates={ratesFor(table, table.base)}
          currencies={currencyList()}
          today={utcDay(new Date(c.get("services").now()))}
        />
      </div>
    </section>
  );
}
