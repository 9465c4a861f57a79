import { useQuery } from "@tanstack/react-query";
import { withQueries } from "./lib/query-client.tsx";
import { BalanceTable, refreshStatus } from "./money/balance-table.tsx";
import { type Balance, balancesQuery, type Funding } from "./money/calls.ts";
import { FundingCard } from "./money/funding-card.tsx";

export interface BalancesProps {
  /** The account whose balances these are (their query's key). */
  accountRef: string;
  /** As the server rendered them: the query starts from these, so hydrating fetches nothing. */
  balances: Balance[];
  funding: Funding | null;
  /** Only the table (a dashboard); the funding card still shows while there is no money. */
  compact?: boolean;
}

/**
 * The customer's balances: every currency held, available and held amounts, from the page's
 * balances query, which a conversion on the same page refreshes. Unless compact, a card says how to
 * add money: a bank transfer to the company's account quoting the account_ref.
 */
function Balances({ accountRef, balances: initial, funding, compact = false }: BalancesProps) {
  const query = useQuery({ ...balancesQuery(accountRef), initialData: initial });
  const balances = query.data;
  return (
    <div className="space-y-6">
      <BalanceTable balances={balances} busy={query.isFetching} status={refreshStatus(query)} />
      {funding?.account_ref && (!compact || balances.length === 0)
        ? <FundingCard funding={{ ...funding, account_ref: funding.account_ref }} />
        : null}
    </div>
  );
}

export default withQueries(Balances);
