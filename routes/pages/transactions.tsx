import { dateInputValue, DATES_REVERSED, reversedPeriod } from "../../lib/periods.ts";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ReactNode } from "react";
import {
  listTransactions,
  MOVEMENT_KIND_NAMES,
  MOVEMENT_KINDS,
  MOVEMENT_STATUSES,
  type MovementStatus,
} from "../../lib/contracts/transactions.ts";
import type { AppEnv } from "../../server/env.ts";
import { NotFound } from "../../server/errors.ts";
import { currencyList } from "../../server/money/currencies.ts";
import {
  listMovements,
  type Movement,
  movementDetail,
  type MovementFilters,
  parseCursor,
} from "../../server/transactions/movements.ts";
import { Timeline, when } from "../../islands/payments/timeline.tsx";
import { costLabels, moneyBackText } from "../../lib/payments/money-back.ts";
import { ACCOUNT_PARAM } from "../../lib/api-types.ts";
import { PageTitle } from "../layouts/parts.tsx";
import { paymentActorOf } from "../payment-actor.ts";
import { ScrollBox } from "../../islands/ui/table.tsx";

/**
 * Transactions (issue 10, part 1; docs/decisions/036): the list is a form whose state is the
 * address (filters, cursor), rendered on the server, so it needs no script; each row leads to the
 * movement's detail; the CSV link carries the same filters.
 */

const PER_PAGE = 50;

export const STATUS_NAMES: Record<MovementStatus, string> = {
  pending_approval: "Waiting for approval",
  approved: "Approved",
  submitted: "Sent",
  completed: "Completed",
  rejected: "Rejected",
  cancelled: "Cancelled",
  failed: "Failed",
};

const FILTER_KEYS = ["from", "to", "currency", "kind", "status", "q"] as const;

/** The address's filters, empty ones left out (a form sends every field). */
function addressQuery(c: Context<AppEnv>): Record<string, string> {
  const raw = c.req.query();
  return Object.fromEntries(
    [...FILTER_KEYS, "cursor" as const].filter((k) => raw[k]?.trim()).map((k) => [k, raw[k].trim()]),
  );
}

const withQuery = (path: string, query: Record<string, string | undefined>) => {
  const params = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => !!e[1]));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
};

const signed = (amount: string) => (amount.startsWith("-") ? `−${amount.slice(1)}` : `+${amount}`);
const isZero = (amount: string) => !/[1-9]/.test(amount);

/** What a movement did to the money, in a line: the change of what is available, else of what is held. */
function Amount({ m }: { m: Movement }) {
  const fromHeld = isZero(m.amount) && !isZero(m.held);
  const main = fromHeld ? m.held : m.amount;
  return (
    <span className={main.startsWith("-") ? "" : "text-green-800 dark:text-green-400"}>
      {`${signed(main)} ${m.currency}`}
      {fromHeld && <span className="block text-xs text-neutral-600 dark:text-neutral-400">from held money</span>}
      {!fromHeld && !isZero(m.held) && (
        <span className="block text-xs text-neutral-600 dark:text-neutral-400">{`held ${signed(m.held)}`}</span>
      )}
      {m.counter_currency && m.counter_amount && (
        <span className="block text-green-800 dark:text-green-400">
          {`${signed(m.counter_amount)} ${m.counter_currency}`}
        </span>
      )}
    </span>
  );
}

function Filters({ query, currencies }: { query: Record<string, string>; currencies: string[] }) {
  const field = "field-control w-full";
  return (
    <form method="get" action="/account/transactions" className="card mb-6 grid gap-4 sm:grid-cols-3 lg:grid-cols-6">
      <label className="block">
        <span className="field-label">From</span>
        <input
          className={field}
          type="date"
          name="from"
          defaultValue={dateInputValue(query.from)}
          aria-describedby="period-days"
        />
      </label>
      <label className="block">
        <span className="field-label">To</span>
        <input
          className={field}
          type="date"
          name="to"
          defaultValue={dateInputValue(query.to)}
          aria-describedby="period-days"
        />
      </label>
      <label className="block">
        <span className="field-label">Currency</span>
        <select className={field} name="currency" defaultValue={query.currency?.toUpperCase() ?? ""}>
          <option value="">All currencies</option>
          {currencies.map((code) => <option key={code} value={code}>{code}</option>)}
        </select>
      </label>
      <label className="block">
        <span className="field-label">Kind</span>
        <select className={field} name="kind" defaultValue={query.kind ?? ""}>
          <option value="">All kinds</option>
          {MOVEMENT_KINDS.map((k) => <option key={k} value={k}>{MOVEMENT_KIND_NAMES[k]}</option>)}
        </select>
      </label>
      <label className="block">
        <span className="field-label">Status</span>
        <select className={field} name="status" defaultValue={query.status ?? ""}>
          <option value="">All statuses</option>
          {MOVEMENT_STATUSES.map((s) => <option key={s} value={s}>{STATUS_NAMES[s]}</option>)}
        </select>
      </label>
      <label className="block">
        <span className="field-label">Search</span>
        <input
          className={field}
          type="search"
          name="q"
          defaultValue={query.q}
          maxLength={70}
          placeholder="Reference, recipient, payer"
        />
      </label>
      {
        /* The days are UTC's, as the list's times are: said, so that someone ahead of or behind UTC
          does not look for a movement of their morning under the wrong day. */
      }
      <p id="period-days" className="text-sm text-neutral-600 sm:col-span-3 lg:col-span-6 dark:text-neutral-400">
        From and To are days in UTC, both included.
      </p>
      <div className="flex gap-2 sm:col-span-3 lg:col-span-6">
        <button type="submit" className="btn-primary">Filter</button>
        <a className="btn-ghost" href="/account/transactions">Clear</a>
      </div>
    </form>
  );
}

function MovementRows({ items }: { items: Movement[] }) {
  if (!items.length) return <p className="card text-neutral-600 dark:text-neutral-400">No transactions match.</p>;
  return (
    <ScrollBox label="Transactions" className="card">
      <table className="w-full text-left text-sm">
        <thead className="text-neutral-600 dark:text-neutral-400">
          <tr>
            <th scope="col" className="py-2 pr-4 font-medium">Date</th>
            <th scope="col" className="py-2 pr-4 font-medium">What</th>
            <th scope="col" className="hidden py-2 pr-4 font-medium sm:table-cell">Status</th>
            <th scope="col" className="py-2 text-right font-medium">Amount</th>
          </tr>
        </thead>
        <tbody>
          {items.map((m) => (
            <tr key={m.id} className="border-t border-neutral-200 dark:border-neutral-800" data-movement={m.id}>
              {/* On a phone the four columns do not fit: the date wraps, the status goes under what it is. */}
              <td className="py-2 pr-4 sm:whitespace-nowrap">{when(m.created_at)}</td>
              <td className="py-2 pr-4">
                <a className="font-medium underline" href={`/account/transactions/${m.id}`}>
                  {MOVEMENT_KIND_NAMES[m.kind]}
                </a>
                {(m.counterparty || m.reference) && (
                  <span className="block text-neutral-600 dark:text-neutral-400">
                    {[m.counterparty, m.reference].filter(Boolean).join(" · ")}
                  </span>
                )}
                <span className="block text-neutral-600 sm:hidden dark:text-neutral-400">{STATUS_NAMES[m.status]}</span>
              </td>
              <td className="hidden py-2 pr-4 sm:table-cell">{STATUS_NAMES[m.status]}</td>
              <td className="py-2 text-right font-mono whitespace-nowrap">
                <Amount m={m} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}

export async function TransactionsPage(c: Context<AppEnv>) {
  const { actor, accountRef } = await paymentActorOf(c);
  const query = addressQuery(c);
  const parsed = listTransactions.query.safeParse({ ...query, limit: String(PER_PAGE) });
  const currencies = currencyList().map((cur) => cur.code);
  let body: ReactNode;
  let usable = true;
  const filters: Record<string, string> = Object.fromEntries(
    Object.entries(query).filter(([k]) => k !== "cursor"),
  );
  if (!parsed.success || reversedPeriod(parsed.data.from, parsed.data.to)) {
    usable = false;
    const problems = parsed.success ? [DATES_REVERSED] : parsed.error.issues.map((i) => i.message);
    body = (
      <div className="card" role="alert">
        <p className="font-semibold">These filters cannot be used:</p>
        <ul className="mt-2 list-disc pl-5">{problems.map((p) => <li key={p}>{p}</li>)}</ul>
      </div>
    );
  } else {
    const { cursor, limit, ...wanted } = parsed.data;
    const page = await listMovements(
      c.get("db"),
      actor.accountId,
      wanted as MovementFilters,
      parseCursor(cursor),
      limit,
    );
    body = (
      <>
        <MovementRows items={page.items} />
        <nav className="mt-4 flex flex-wrap gap-2" aria-label="Pages">
          {cursor && <a className="btn-ghost" href={withQuery("/account/transactions", filters)}>Newest</a>}
          {page.next_cursor && (
            <a
              className="btn-outline"
              rel="next"
              href={withQuery("/account/transactions", { ...filters, cursor: page.next_cursor })}
            >
              Older movements
            </a>
          )}
        </nav>
      </>
    );
  }
  return (
    <>
      <PageTitle
        lead={
          <>
            Every movement of your money, newest first.{" "}
            {/* Filters the list refuses would make the file a refusal: no link until they are fixed. */}
            {
              /* The link names the account shown, and is followed rather than saved (no `download`:
                the file comes as an attachment): a refusal, such as the session switched to another
                account in another window, brings this page back with the reason (decision 075). */
            }
            {usable && (
              <a
                className="underline"
                href={withQuery("/api/account/transactions.csv", { ...filters, [ACCOUNT_PARAM]: accountRef })}
              >
                Download CSV
              </a>
            )}
          </>
        }
      >
        Transactions
      </PageTitle>
      <Filters query={query} currencies={currencies} />
      {body}
    </>
  );
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex justify-between gap-4 border-t border-neutral-200 py-2 first:border-t-0 dark:border-neutral-800">
      <dt className="text-neutral-600 dark:text-neutral-400">{label}</dt>
      <dd className="text-right font-medium">{children}</dd>
    </div>
  );
}

export async function TransactionPage(c: Context<AppEnv>) {
  const { actor, viewer } = await paymentActorOf(c);
  let m;
  try {
    m = await movementDetail(c.get("db"), actor.accountId, Number(c.req.param("id")), viewer);
  } catch (error) {
    // Another account's movement is not found, like one that does not exist.
    if (error instanceof NotFound) throw new HTTPException(404, { message: "Page not found" });
    throw error;
  }
  // A payment that ended unpaid: its money came back, and its cost is what it would have been.
  const moneyBack = m.payment ? moneyBackText(m.payment) : null;
  const labels = costLabels(m.payment?.status ?? "completed");
  return (
    <>
      <PageTitle lead={<a className="underline" href="/account/transactions">All transactions</a>}>
        {MOVEMENT_KIND_NAMES[m.kind]}
      </PageTitle>
      <div className="grid gap-6 lg:grid-cols-2">
        <section className="card" aria-labelledby="movement-heading">
          <h2 id="movement-heading" className="mb-2 text-lg font-semibold">Movement</h2>
          <dl>
            <Row label="Date">{when(m.created_at)}</Row>
            <Row label="Status">{STATUS_NAMES[m.status]}</Row>
            <Row label="Amount">
              <Amount m={m} />
            </Row>
            {m.counterparty && <Row label={m.payment_id ? "Recipient" : "Payer"}>{m.counterparty}</Row>}
            {m.reference && <Row label="Reference">{m.reference}</Row>}
            <Row label="Description">{m.description}</Row>
            <Row label="Transaction id">{m.id}</Row>
          </dl>
        </section>
        {m.cost && (
          <section className="card" aria-labelledby="cost-heading">
            <h2 id="cost-heading" className="mb-2 text-lg font-semibold">Full cost</h2>
            {moneyBack && <p className="mb-2 text-sm font-medium" data-money-back>{moneyBack}</p>}
            <dl>
              <Row label={m.payment ? (moneyBack ? labels.debited : "Debited from your balance") : "Sold"}>
                {`${m.cost.sell_amount} ${m.cost.sell_currency}`}
              </Row>
              <Row label={m.payment ? labels.arrives : "Bought"}>
                {`${m.cost.buy_amount} ${m.cost.buy_currency}`}
              </Row>
              {m.cost.mid_rate && (
                <Row label="Mid-market rate">
                  {`1 ${m.cost.sell_currency} = ${m.cost.mid_rate} ${m.cost.buy_currency}`}
                </Row>
              )}
              {m.cost.rate && (
                <Row label="Our rate">
                  {`1 ${m.cost.sell_currency} = ${m.cost.rate} ${m.cost.buy_currency}`}
                </Row>
              )}
              {m.cost.markup && <Row label="Our markup on the rate">{`${m.cost.markup} ${m.cost.sell_currency}`}</Row>}
              <Row label="Fee">{`${m.cost.fee} ${m.cost.fee_currency}`}</Row>
            </dl>
          </section>
        )}
        {m.receipt && (
          <section className="card" aria-labelledby="receipt-heading">
            <h2 id="receipt-heading" className="mb-2 text-lg font-semibold">Bank transfer received</h2>
            <dl>
              <Row label="Payer">{m.receipt.payer_name}</Row>
              <Row label="Their reference">{m.receipt.reference}</Row>
              <Row label="Received on">{m.receipt.received_at}</Row>
            </dl>
          </section>
        )}
        {m.payment && (
          <section className="card lg:col-span-2" aria-labelledby="timeline-heading">
            <h2 id="timeline-heading" className="mb-2 text-lg font-semibold">The payment's timeline</h2>
            <p className="mb-4 text-sm">
              <a className="underline" href={`/account/pendingpayments/${m.payment.id}`}>
                Payment {m.payment.id} to {m.payment.recipient.name}
              </a>{" "}
              · {STATUS_NAMES[m.payment.status as MovementStatus] ?? m.payment.status}
            </p>
            <Timeline events={m.payment.events} />
          </section>
        )}
      </div>
    </>
  );
}
