import { type FormEvent, useState } from "react";
import { api, errorText, fieldsOf, isAbort } from "./lib/api.ts";
import { FormAlert } from "./lib/form-alert.tsx";
import { SubmitButton, useIdempotencyKey } from "./lib/forms.tsx";
import { notify } from "./lib/notifications.ts";
import { ERROR, inputClass as consoleInput, LABEL } from "./lib/console-fields.ts";

export interface FeeOverrides {
  override_transfer_fee: boolean;
  /** Decimal strings in the currency the customer sells; null when not set. */
  override_regular_transfer_fee: string | null;
  override_priority_transfer_fee: string | null;
}

export interface ConsoleUserFeesProps {
  userId: number;
  name: string;
  overrides: FeeOverrides;
}

/** A fee field below its label, in the console's look. */
const inputClass = (invalid: boolean) => `mt-1 max-w-48 font-mono ${consoleInput(invalid)}`;

/**
 * A customer's fee overrides (DESIGN.md section 4): when on, the two fees replace their pricing
 * plan's transfer fees, read in the currency they sell. PUT console/users/{userId}/fees; an empty
 * fee is sent as null.
 */
export default function ConsoleUserFees({ userId, name, overrides }: ConsoleUserFeesProps) {
  const idempotencyKey = useIdempotencyKey();
  const [on, setOn] = useState(overrides.override_transfer_fee);
  const [regular, setRegular] = useState(overrides.override_regular_transfer_fee ?? "");
  const [priority, setPriority] = useState(overrides.override_priority_transfer_fee ?? "");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fields, setFields] = useState<Record<string, string>>({});

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (pending) return;
    const payload: FeeOverrides = {
      override_transfer_fee: on,
      override_regular_transfer_fee: regular.trim() || null,
      override_priority_transfer_fee: priority.trim() || null,
    };
    setPending(true);
    setError(null);
    setFields({});
    try {
      const user = await api.put<Partial<FeeOverrides>>(`console/users/${userId}/fees`, payload, {
        idempotencyKey: idempotencyKey(payload),
      });
      setOn(user?.override_transfer_fee ?? payload.override_transfer_fee);
      setRegular((user?.override_regular_transfer_fee ?? payload.override_regular_transfer_fee) ?? "");
      setPriority((user?.override_priority_transfer_fee ?? payload.override_priority_transfer_fee) ?? "");
      notify({
        title: "Fees saved",
        description: `${name || "The customer"} ${
          (user?.override_transfer_fee ?? on) ? "now pays the fees set here." : "pays their pricing plan's fees."
        }`,
        color: "success",
      });
    } catch (err) {
      if (!isAbort(err)) {
        setError(errorText(err));
        setFields(fieldsOf(err));
      }
    } finally {
      setPending(false);
    }
  }

  const fee = (id: string, field: keyof FeeOverrides, label: string, value: string, set: (v: string) => void) => {
    const problem = fields[field];
    return (
      <div>
        <label htmlFor={id} className={LABEL}>{label}</label>
        <input
          id={id}
          type="text"
          inputMode="decimal"
          autoComplete="off"
          value={value}
          onChange={(event) => set(event.currentTarget.value)}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? `${id}-error` : "user-fees-hint"}
          className={inputClass(!!problem)}
        />
        {problem ? <p id={`${id}-error`} className={ERROR}>{problem}</p> : null}
      </div>
    );
  };

  return (
    <form
      onSubmit={save}
      noValidate
      aria-label={`Transfer fees for ${name || "this customer"}`}
      className="flex flex-col gap-4"
    >
      <FormAlert
        error={error}
        fields={fields}
        shown={["override_transfer_fee", "override_regular_transfer_fee", "override_priority_transfer_fee"]}
      />
      <div className="flex items-center gap-2">
        <input
          id="user-fees-on"
          type="checkbox"
          checked={on}
          onChange={(event) => setOn(event.currentTarget.checked)}
          aria-invalid={fields.override_transfer_fee ? true : undefined}
          aria-describedby={fields.override_transfer_fee ? "user-fees-on-error" : undefined}
          className="size-4 accent-primary-700"
        />
        <label htmlFor="user-fees-on" className="text-sm font-medium">Override the plan's transfer fees</label>
      </div>
      {fields.override_transfer_fee
        ? <p id="user-fees-on-error" className={ERROR}>{fields.override_transfer_fee}</p>
        : null}
      <p id="user-fees-hint" className="text-sm text-neutral-600 dark:text-neutral-300">
        {on
          ? "These fees are charged in the currency the customer sells, in place of their plan's."
          : "Off: the customer pays their pricing plan's fees; the amounts below are kept but not used."}
      </p>
      <div className="flex flex-wrap gap-4">
        {fee("user-fees-regular", "override_regular_transfer_fee", "Regular transfer fee", regular, setRegular)}
        {fee("user-fees-priority", "override_priority_transfer_fee", "Priority transfer fee", priority, setPriority)}
      </div>
      <div>
        <SubmitButton pending={pending} pendingLabel="Saving…" className="btn-primary">Save fees</SubmitButton>
      </div>
    </form>
  );
}
