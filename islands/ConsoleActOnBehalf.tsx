import { useQueryClient } from "@tanstack/react-query";
import { ACT_ON_BEHALF_TARGET, onBehalfError, setOnBehalf, startOnBehalf, toCustomer } from "./lib/on-behalf.ts";
import { withQueries } from "./lib/query-client.tsx";
import { useWrite } from "./lib/write.ts";
import { Alert } from "./ui/alert.tsx";
import { BusyButton } from "./ui/submit-button.tsx";

export interface ConsoleActOnBehalfProps {
  customer: { id: number; name: string };
  /** Whether the administrator already acts for this customer. */
  current: boolean;
}

/**
 * "Act on behalf" on a customer's console page: the same call and the same full page load to
 * /account as the button on the list's rows (islands/ConsoleUsers.tsx), so the layout shows the
 * banner of the mode.
 */
function ConsoleActOnBehalf({ customer, current }: ConsoleActOnBehalfProps) {
  const queries = useQueryClient();
  const act = useWrite({
    call: startOnBehalf,
    idempotent: true,
    onSuccess(answer) {
      setOnBehalf(toCustomer(answer), queries);
      location.assign(ACT_ON_BEHALF_TARGET);
    },
  });
  return (
    <div className="flex flex-wrap items-center gap-3">
      <BusyButton
        type="button"
        className="btn-primary"
        busy={act.isPending || act.isSuccess}
        aria-label={`Act on behalf of ${customer.name}`}
        onClick={() => act.mutate({ body: { on_behalf_of: customer.id } })}
      >
        {act.isPending || act.isSuccess ? "Switching…" : "Act on behalf"}
      </BusyButton>
      {current
        ? <span className="text-sm font-semibold text-amber-800 dark:text-amber-200">You act on their behalf now.</span>
        : null}
      {act.error ? <Alert>{onBehalfError(act.error)}</Alert> : null}
    </div>
  );
}

export default withQueries(ConsoleActOnBehalf);
