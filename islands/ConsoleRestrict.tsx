import { liftRestriction, restrictCustomer, type Restriction } from "./console/calls.ts";
import { ReasonForm } from "./console/reason-form.tsx";
import { notify } from "./lib/notification-store.ts";
import { withQueries } from "./lib/query-client.tsx";
import { useInPlace } from "./ui/take-focus.ts";

export interface ConsoleRestrictProps {
  customer: { id: number; name: string };
  restriction: Restriction;
}

/**
 * Restricting a customer on their console page (decision 048): with a reason kept for the file
 * (POST console/users/{id}/restrict), or lifting it with a reason too (DELETE). Restricted, the customer still signs
 * in and sees everything, but cannot convert, pay or approve. The page is loaded again afterwards,
 * so its audit trail shows what was done.
 */
function ConsoleRestrict({ customer, restriction }: ConsoleRestrictProps) {
  // The reason's form replaces its button; Cancel or Escape give the keyboard back to it.
  const question = useInPlace();
  const asking = question.open;
  const done = (what: string) => {
    notify({ title: what, description: customer.name, color: "success" });
    location.reload();
  };

  if (restriction.restricted) {
    return (
      <div className="flex flex-col gap-3">
        <p className="text-sm" data-restriction="on">
          <strong className="text-amber-800 dark:text-amber-300">Restricted</strong>
          {restriction.at ? ` since ${restriction.at.slice(0, 16).replace("T", " ")}` : ""}
          {restriction.by ? ` by ${restriction.by}` : ""}: {restriction.reason}
        </p>
        {asking
          ? (
            // Lifting undoes a compliance decision: like restricting, it asks why and is confirmed
            // by sending the form (decision 048, amended).
            <div className="flex flex-col gap-2">
              <p className="text-sm">
                Lifted, {customer.name} can convert, pay and approve payments again. Say why.
              </p>
              <ReasonForm
                id="lift-reason"
                label={`Lift the restriction of ${customer.name}`}
                write={{ call: liftRestriction, onSuccess: () => done("Restriction lifted") }}
                input={{ params: { id: String(customer.id) } }}
                submitLabel="Confirm lifting"
                pendingLabel="Lifting…"
                first={question.first}
                onCancel={question.dismiss}
                missing="Give the reason: it is kept for the file."
              />
            </div>
          )
          : (
            <div>
              <button
                type="button"
                className="btn-outline"
                aria-expanded={false}
                ref={question.opener}
                onClick={question.show}
              >
                Lift the restriction
              </button>
            </div>
          )}
      </div>
    );
  }
  return (
    <div className="flex flex-col gap-3">
      <p className="text-sm" data-restriction="off">
        Not restricted: the customer can convert, pay and approve payments.
      </p>
      {asking
        ? (
          <ReasonForm
            id="restrict-reason"
            label={`Restrict ${customer.name}`}
            write={{ call: restrictCustomer, onSuccess: () => done("Customer restricted") }}
            input={{ params: { id: String(customer.id) } }}
            submitLabel="Restrict"
            pendingLabel="Restricting…"
            first={question.first}
            onCancel={question.dismiss}
            missing="Give the reason: it is kept for the file."
          />
        )
        : (
          <div>
            <button
              type="button"
              className="btn-outline"
              aria-expanded={false}
              ref={question.opener}
              onClick={question.show}
            >
              Restrict the customer
            </button>
          </div>
        )}
    </div>
  );
}

export default withQueries(ConsoleRestrict);
