/**
 * The accounts a login belongs to, each with a button that makes it the session's current account
 * (POST account/select); the server then sends the browser to /account (or to the conversion the
 * sign-in was for, decision 068), where everything is about
 * the account chosen. The current one is marked and has no button.
 */
import { errorText } from "../lib/api.ts";
import { useWrite } from "../lib/write.ts";
import { Alert } from "../ui/alert.tsx";
import { aRole, type LinkedAccount, selectAccount } from "./calls.ts";
import { BusyButton } from "../ui/submit-button.tsx";

export function AccountChoices({ accounts, action }: {
  accounts: LinkedAccount[];
  /** What the button says: "Work on this account", "Switch to this account". */
  action: string;
}) {
  const choice = useWrite({ call: selectAccount });
  // A success leaves the page: the buttons stay disabled until it does.
  const busy = choice.isPending || choice.isSuccess;
  return (
    <div className="flex flex-col gap-4">
      {choice.isError ? <Alert title="The account could not be chosen">{errorText(choice.error)}</Alert> : null}
      <ul className="flex flex-col gap-3" aria-label="Your accounts">
        {accounts.map((account) => (
          <li
            key={account.account_ref}
            className="card flex flex-wrap items-center justify-between gap-4"
            aria-current={account.current || undefined}
          >
            <div>
              <p className="text-lg font-semibold">{account.name}</p>
              <p className="text-sm text-neutral-700 dark:text-neutral-300">
                {account.type} account <span className="font-mono">{account.account_ref}</span> · you are{" "}
                {aRole(account.role)}
              </p>
            </div>
            {account.current
              ? (
                <span className="rounded-full bg-primary-50 px-3 py-1 text-sm font-semibold text-primary-800 dark:bg-neutral-800 dark:text-primary-300">
                  Current account
                </span>
              )
              : (
                <BusyButton
                  type="button"
                  className="btn-primary"
                  busy={busy}
                  aria-busy={(choice.isPending && choice.variables?.body?.account_ref === account.account_ref) ||
                    undefined}
                  aria-label={`${action}: ${account.name} (${account.account_ref})`}
                  onClick={() => choice.mutate({ body: { account_ref: account.account_ref } })}
                >
                  {choice.isPending && choice.variables?.body?.account_ref === account.account_ref
                    ? "Opening…"
                    : action}
                </BusyButton>
              )}
          </li>
        ))}
      </ul>
    </div>
  );
}
