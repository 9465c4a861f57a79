import { type FormEvent, useState } from "react";
import { errorText } from "./lib/api.ts";
import { notify } from "./lib/notification-store.ts";
import { withQueries } from "./lib/query-client.tsx";
import { useWrite } from "./lib/write.ts";
import { partnerKeys, setCustomerPartner } from "./partners/calls.ts";
import { Alert } from "./ui/alert.tsx";
import { SelectField } from "./ui/field.tsx";
import { SubmitButton } from "./ui/submit-button.tsx";

export interface ConsoleCustomerPartnerProps {
  customer: { id: number; name: string };
  /** Every partner, to choose from. */
  partners: { id: number; name: string; code: string }[];
  /** The customer's partner now, if any. */
  current: number | null;
}

/**
 * The customer's partner on their console page (PUT console/users/{id}/partner, decision 051):
 * for a customer who registered without the partner's code, or with another. The page is loaded
 * again afterwards, so its audit trail shows the change.
 */
function ConsoleCustomerPartner({ customer, partners, current }: ConsoleCustomerPartnerProps) {
  const [chosen, setChosen] = useState(current === null ? "" : String(current));
  const saving = useWrite({
    call: setCustomerPartner,
    idempotent: true,
    invalidates: [partnerKeys.all],
    onSuccess(answer) {
      notify({
        title: answer.partner ? `Now ${answer.partner}'s customer` : "No partner now",
        description: customer.name,
        color: "success",
      });
      location.reload();
    },
  });

  function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    saving.mutate({ params: { id: customer.id }, body: { partner_id: chosen ? Number(chosen) : null } });
  }

  return (
    <form onSubmit={save} aria-label="The customer's partner" className="flex flex-col gap-3 sm:flex-row sm:items-end">
      <SelectField
        id="customer-partner"
        label="Partner"
        value={chosen}
        onChange={(event) =>
          setChosen(event.currentTarget.value)}
        fieldClassName="grow"
      >
        <option value="">No partner</option>
        {partners.map((p) => <option key={p.id} value={String(p.id)}>{`${p.name} (${p.code})`}</option>)}
      </SelectField>
      <div>
        <SubmitButton pending={saving.isPending} pendingLabel="Saving…" className="btn-outline">
          Save the partner
        </SubmitButton>
      </div>
      {saving.error ? <Alert>{errorText(saving.error)}</Alert> : null}
    </form>
  );
}

export default withQueries(ConsoleCustomerPartner);
