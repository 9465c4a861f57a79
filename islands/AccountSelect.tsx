import type { LinkedAccount } from "./accounts/calls.ts";
import { AccountChoices } from "./accounts/account-choices.tsx";
import { withQueries } from "./lib/query-client.tsx";

export interface AccountSelectProps {
  /** Every account the login belongs to, as the server read them. */
  accounts: LinkedAccount[];
}

/**
 * /account-select (decision 028): a login with several accounts chooses the one this session works
 * on; the server then sends it to /account.
 */
function AccountSelect({ accounts }: AccountSelectProps) {
  return <AccountChoices accounts={accounts} action="Work on this account" />;
}

export default withQueries(AccountSelect);
