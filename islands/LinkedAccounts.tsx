import { useQuery } from "@tanstack/react-query";
import { type LinkedAccount, linkedAccountsQuery } from "./accounts/calls.ts";
import { AccountChoices } from "./accounts/account-choices.tsx";
import { withQueries } from "./lib/query-client.tsx";

export interface LinkedAccountsProps {
  /** As the server rendered them: the query starts from these. */
  accounts: LinkedAccount[];
}

/**
 * /account/linked-accounts (decision 028): every account the login belongs to, with the role on
 * each; the current one is marked, any other can be switched to.
 */
function LinkedAccounts({ accounts: initial }: LinkedAccountsProps) {
  const accounts = useQuery({ ...linkedAccountsQuery(), initialData: initial }).data;
  return <AccountChoices accounts={accounts} action="Switch to this account" />;
}

export default withQueries(LinkedAccounts);
