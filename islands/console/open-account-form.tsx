/**
 * The compliance review that opens a customer's account (SPEC.md sections 3 and 5): review done,
 * approved annual volume, review date. POST console/users/{id}/open-account.
 */
import type { Ref } from "react";
import type { SessionUser } from "../../lib/session-user.ts";
import { customerKeys } from "../lib/query-keys.ts";
import { FormAlert } from "../ui/alert.tsx";
import { AmountInput } from "../ui/amount.tsx";
import { CheckboxField, TextField } from "../ui/field.tsx";
import { SubmitButton } from "../ui/submit-button.tsx";
import { onEscape } from "../ui/take-focus.ts";
import { useForm } from "../ui/use-form.ts";
import { type ConsoleUser, openAccount } from "./calls.ts";

export function OpenAccountForm({ user, overridesRejection = false, first, onCancel, onOpened }: {
  user: Pick<ConsoleUser, "id" | "name" | "username">;
  /** The customer was rejected: this review overrides the rejection (docs/decisions/026). */
  overridesRejection?: boolean;
  /** "Compliance review done", which takes the keyboard as the form opens (useInPlace's `first`). */
  first: Ref<HTMLInputElement>;
  /** Closed without opening (Cancel, or Escape inside it): the opener takes the focus back (useInPlace). */
  onCancel: () => void;
  onOpened: (customer: SessionUser) => void;
}) {
  const form = useForm({
    call: openAccount,
    idempotent: true,
    invalidates: [customerKeys.all],
    values: { done: false, amount: "", date: "" },
    onSuccess: onOpened,
  });
  const base = `compliance-${user.id}`;
  // The server names these fields "compliance.amount" (its schema) or "amount" (its rule).
  const problem = (name: string) => form.fields[`compliance.${name}`] ?? form.fields[name];
  const { done, amount, date } = form.values;

  function submit(event: { preventDefault(): void }) {
    event.preventDefault();
    const compliance = { done, amount: amount.trim(), date };
    void form.submit({
      params: { id: user.id },
      body: overridesRejection ? { compliance, overrides_rejection: true } : { compliance },
    });
  }

  return (
    <form
      onSubmit={submit}
      onKeyDown={onEscape(onCancel)}
      noValidate
      aria-label={`Compliance review for ${user.name || user.username}`}
      className="flex flex-col gap-3"
    >
      <p className="text-sm font-semibold">Compliance review</p>
      <FormAlert
        error={form.error}
        fields={form.fields}
        shown={["done", "amount", "date", "compliance.done", "compliance.amount", "compliance.date"]}
      />
      <div className="flex flex-wrap items-start gap-4">
        <CheckboxField
          ref={first}
          id={`${base}-done`}
          label="Compliance review done"
          className="pt-7"
          checked={done}
          onChange={(event) => form.set("done", event.currentTarget.checked)}
          error={problem("done")}
        />
        <AmountInput
          id={`${base}-amount`}
          label="Approved annual volume"
          required={false}
          value={amount}
          onChange={(event) => form.set("amount", event.currentTarget.value)}
          hint="For example: 50000"
          error={problem("amount")}
        />
        <TextField
          id={`${base}-date`}
          label="Review date"
          type="date"
          required={false}
          value={date}
          onChange={(event) => form.set("date", event.currentTarget.value)}
          error={problem("date")}
        />
      </div>
      <div className="flex gap-2">
        <SubmitButton pending={form.submitting} pendingLabel="Opening…" className="btn-primary">
          Open the account
        </SubmitButton>
        <button type="button" className="btn-ghost" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
