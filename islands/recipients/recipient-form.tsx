/**
 * Adding a recipient, or changing one. Adding: the currency, then the country of the recipient's
 * bank (the currency's home country first), and the bank details those need, drawn from the
 * requirements answer. Changing: the name, type, email and bank details; the currency and the
 * bank's country stay (other ones are a new recipient, since the details would no longer fit).
 * The browser checks each detail while it is typed; the server checks everything again, the UK
 * modulus check included, and names the field it refuses.
 */
import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { DetailKey } from "../../lib/bank-details/formats.ts";
import type * as contracts from "../../lib/contracts/recipients.ts";
import { errorText } from "../lib/api.ts";
import { recipientKeys } from "../lib/query-keys.ts";
import { Alert, FormAlert } from "../ui/alert.tsx";
import { type CurrencyOption, CurrencySelect } from "../ui/currency-select.tsx";
import { Messages, SelectField, TextField } from "../ui/field.tsx";
import { SubmitButton } from "../ui/submit-button.tsx";
import { useTakeFocus } from "../ui/take-focus.ts";
import { useForm } from "../ui/use-form.ts";
import { BankFields, bankProblems } from "./bank-fields.tsx";
import {
  addRecipient,
  changeRecipient,
  type RecipientInput,
  type RecipientWithHistory,
  requirementsQuery,
} from "./calls.ts";
import { countryLabel } from "./format.ts";

type Values = {
  name: string;
  type: "person" | "business";
  email: string;
  currency: string;
  /** "" until the customer picks one: the currency's home country. */
  country: string;
  details: Record<string, string>;
};

const valuesOf = (recipient: RecipientWithHistory): Values => ({
  name: recipient.name,
  type: recipient.type,
  email: recipient.email ?? "",
  currency: recipient.currency,
  country: recipient.country,
  details: { ...recipient.details },
});

const RECIPIENT_FIELDS = ["name", "type", "email", "currency", "country"];

export function RecipientForm({ accountRef, currencies, recipient, onSaved, onCancel }: {
  accountRef: string;
  currencies: readonly CurrencyOption[];
  /** The recipient to change; none to add one. */
  recipient?: RecipientWithHistory;
  onSaved: (recipient: RecipientWithHistory) => void;
  onCancel: () => void;
}) {
  const queries = useQueryClient();
  const adding = !recipient;
  const id = adding ? "new-recipient" : `recipient-${recipient.id}`;
  const [left, setLeft] = useState<ReadonlySet<string>>(new Set());
  // The form is only ever opened by a button it replaces.
  const heading = useTakeFocus<HTMLHeadingElement>(true);
  const form = useForm<typeof contracts.addRecipient | typeof contracts.changeRecipient, Values>({
    call: adding ? addRecipient : changeRecipient,
    invalidates: [recipientKeys.all],
    idempotent: true,
    values: recipient ? valuesOf(recipient) : {
      name: "",
      type: "person",
      email: "",
      currency: currencies.some((c) => c.code === "GBP") ? "GBP" : currencies[0]?.code ?? "",
      country: "",
      details: {},
    },
    onSuccess(saved) {
      queries.setQueryData(recipientKeys.one(accountRef, saved.id), saved);
      onSaved(saved);
    },
  });
  const { values, fields } = form;
  const requirements = useQuery({
    ...requirementsQuery(values.currency, values.country),
    placeholderData: keepPreviousData,
  });
  const requirement = requirements.isPlaceholderData ? undefined : requirements.data;

  function chooseCurrency(currency: string) {
    form.set("currency", currency);
    form.set("country", "");
    form.set("details", {});
    setLeft(new Set());
  }

  function chooseCountry(country: string) {
    form.set("country", country);
    form.set("details", {});
    setLeft(new Set());
  }

  function send(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!requirement) return;
    const problems = bankProblems(requirement, values.details);
    if (Object.keys(problems).length) {
      setLeft(new Set(requirement.fields.map((f) => f.key)));
      form.show(Object.fromEntries(Object.entries(problems).map(([key, problem]) => [`details.${key}`, problem])));
      return;
    }
    const body: RecipientInput = {
      name: values.name,
      type: values.type,
      currency: requirement.currency,
      country: requirement.country,
      email: values.email,
      details: Object.fromEntries(requirement.fields.map((f) => [f.key, values.details[f.key] ?? ""])),
    };
    void form.submit(adding ? { body } : { body, params: { id: recipient.id } });
  }

  const text = (name: "name" | "email") => ({
    value: values[name],
    onChange: (event: { currentTarget: { value: string } }) => form.set(name, event.currentTarget.value),
    error: fields[name],
  });

  const title = adding ? "Add a recipient" : `Change ${recipient.name}`;
  return (
    <form onSubmit={send} noValidate aria-labelledby={`${id}-title`} className="card flex flex-col gap-4">
      <h2 ref={heading} tabIndex={-1} id={`${id}-title`} className="text-lg font-semibold">{title}</h2>
      <FormAlert
        error={form.error}
        title={adding ? "The recipient could not be saved" : "The changes could not be saved"}
        fields={fields}
        shown={(path) => RECIPIENT_FIELDS.includes(path) || path.startsWith("details.")}
      />
      <TextField id={`${id}-name`} label="Full name or business name" autoComplete="off" {...text("name")} />
      <fieldset>
        <legend className="mb-1 field-label">Who is it?</legend>
        <div className="flex gap-6" aria-describedby={fields.type ? `${id}-type-error` : undefined}>
          {(["person", "business"] as const).map((type) => (
            <label key={type} className="flex items-center gap-2 text-sm">
              <input
                type="radio"
                name={`${id}-type`}
                value={type}
                checked={values.type === type}
                onChange={() =>
                  form.set("type", type)}
                className="field-checkbox"
              />
              {type === "person" ? "A person" : "A business"}
            </label>
          ))}
        </div>
        <Messages id={`${id}-type`} error={fields.type} />
      </fieldset>
      <TextField
        id={`${id}-email`}
        label="Their email"
        type="email"
        optional
        hint="We email them when a payment is on its way."
        autoComplete="off"
        {...text("email")}
      />
      {adding
        ? (
          <div className="grid gap-4 sm:grid-cols-2">
            <CurrencySelect
              id={`${id}-currency`}
              label="Currency they receive"
              currencies={currencies}
              value={values.currency}
              error={fields.currency}
              onChange={(event) => chooseCurrency(event.currentTarget.value)}
            />
            <SelectField
              id={`${id}-country`}
              label="Country of their bank"
              value={values.country || requirements.data?.country || ""}
              error={fields.country}
              disabled={!requirements.data}
              onChange={(event) => chooseCountry(event.currentTarget.value)}
            >
              {(requirements.data?.countries ?? []).map((code) => (
                <option key={code} value={code}>{countryLabel(code)}</option>
              ))}
            </SelectField>
          </div>
        )
        : (
          <p className="text-sm text-neutral-700 dark:text-neutral-300">
            Receives {recipient.currency} at a bank in{" "}
            {countryLabel(recipient.country)}. To pay another currency or bank country, add a new recipient.
          </p>
        )}
      {requirements.isError
        ? <Alert title="We cannot show the bank details this needs">{errorText(requirements.error)}</Alert>
        : null}
      {requirement
        ? (
          <fieldset className="flex flex-col gap-4">
            <legend className="mb-1 text-base font-semibold">Bank details · {requirement.scheme_name}</legend>
            <BankFields
              idPrefix={id}
              requirement={requirement}
              details={values.details}
              left={left}
              problems={fields}
              onChange={(key: DetailKey, value) => form.set(`details.${key}`, value)}
              onLeave={(key) => setLeft((current) => new Set(current).add(key))}
            />
          </fieldset>
        )
        : requirements.isError
        ? null
        : <p role="status" className="text-sm text-neutral-600 dark:text-neutral-300">Loading the bank details…</p>}
      <div className="flex flex-wrap gap-3">
        <SubmitButton pending={form.submitting} pendingLabel="Saving…" className="btn-primary">
          {adding ? "Save the recipient" : "Save the changes"}
        </SubmitButton>
        <button type="button" className="btn-outline" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
