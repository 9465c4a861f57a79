import type { FormEvent } from "react";
import { type FeeOverrides, setFees } from "./console/calls.ts";
import { notify } from "./lib/notification-store.ts";
import { withQueries } from "./lib/query-client.tsx";
import { FormAlert } from "./ui/alert.tsx";
import { AmountInput } from "./ui/amount.tsx";
import { CheckboxField } from "./ui/field.tsx";
import { SubmitButton } from "./ui/submit-button.tsx";
import { useForm } from "./ui/use-form.ts";

export interface ConsoleUserFeesProps {
  userId: number;
  name: string;
  overrides: FeeOverrides;
}

const HINT_ID = "user-fees-hint";

/**
 * A customer's fee overrides (DESIGN.md section 4): when on, the two fees replace their pricing
 * plan's transfer fees, read in the currency they sell. PUT console/users/{userId}/fees; an empty
 * fee is sent as null.
 */
function ConsoleUserFees({ userId, name, overrides }: ConsoleUserFeesProps) {
  const form = useForm({
    call: setFees,
    idempotent: true,
    // Named as the call names them, so a problem the server names goes when its field changes.
    values: {
      override_transfer_fee: overrides.override_transfer_fee,
      override_regular_transfer_fee: overrides.override_regular_transfer_fee ?? "",
      override_priority_transfer_fee: overrides.override_priority_transfer_fee ?? "",
    },
    onSuccess(user) {
      form.set("override_transfer_fee", user.override_transfer_fee);
      form.set("override_regular_transfer_fee", user.override_regular_transfer_fee ?? "");
      form.set("override_priority_transfer_fee", user.override_priority_transfer_fee ?? "");
      notify({
        title: "Fees saved",
        description: `${name || "The customer"} ${
          user.override_transfer_fee ? "now pays the fees set here." : "pays their pricing plan's fees."
        }`,
        color: "success",
      });
    },
  });
  const {
    override_transfer_fee: on,
    override_regular_transfer_fee: regular,
    override_priority_transfer_fee: priority,
  } = form.values;

  function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void form.submit({
      params: { id: userId },
      body: {
        override_transfer_fee: on,
        override_regular_transfer_fee: regular.trim() || null,
        override_priority_transfer_fee: priority.trim() || null,
      },
    });
  }

  const fee = (
    id: string,
    field: "override_regular_transfer_fee" | "override_priority_transfer_fee",
    label: string,
  ) => (
    <AmountInput
      id={id}
      label={label}
      required={false}
      value={form.values[field]}
      onChange={(event) => form.set(field, event.currentTarget.value)}
      error={form.fields[field]}
      aria-describedby={form.fields[field] ? `${id}-error` : HINT_ID}
      className="max-w-48 font-mono"
    />
  );

  return (
    <form
      onSubmit={save}
      noValidate
      aria-label={`Transfer fees for ${name || "this customer"}`}
      className="flex flex-col gap-4"
    >
      <FormAlert
        error={form.error}
        fields={form.fields}
        shown={["override_transfer_fee", "override_regular_transfer_fee", "override_priority_transfer_fee"]}
      />
      <CheckboxField
        id="user-fees-on"
        label="Override the plan's transfer fees"
        checked={on}
        onChange={(event) => form.set("override_transfer_fee", event.currentTarget.checked)}
        error={form.fields.override_transfer_fee}
      />
      <p id={HINT_ID} className="field-hint">
        {on
          ? "These fees are charged in the currency the customer sells, in place of their plan's."
          : "Off: the customer pays their pricing plan's fees; the amounts below are kept but not used."}
      </p>
      <div className="flex flex-wrap gap-4">
        {fee("user-fees-regular", "override_regular_transfer_fee", "Regular transfer fee")}
        {fee("user-fees-priority", "override_priority_transfer_fee", "Priority transfer fee")}
      </div>
      <div>
        <SubmitButton pending={form.submitting} pendingLabel="Saving…" className="btn-primary">Save fees</SubmitButton>
      </div>
    </form>
  );
}

export default withQueries(ConsoleUserFees);
