import { type ReactNode, useEffect, useRef } from "react";
import {
  CheckboxList,
  type CountryOption,
  describedBy,
  ERROR,
  fieldId,
  getIn,
  inputClass,
  LABEL,
  Messages,
  ProfileForm,
  Section,
  SelectField,
  TextField,
  useForm,
  type Values,
} from "./lib/profile-form.tsx";

export interface BusinessProfileFormProps {
  countries: CountryOption[];
  /** Every field of the form, the saved answers or empty (lib/profile-values.ts: profileValues). */
  values: Values;
}

const BUSINESS_PURPOSES = [
  "Paying suppliers",
  "Payroll abroad",
  "Receiving from customers",
  "Treasury / FX",
  "Other",
];

/**
 * The profile of a business customer (register-business): about the company, its contact person,
 * its registered address, its owners, directors and purpose, and how it heard about us. The frame
 * (posting, errors, the address) is lib/profile-form.tsx's.
 */
export default function BusinessProfileForm({ countries, values }: BusinessProfileFormProps) {
  return (
    <ProfileForm
      values={values}
      countries={countries}
      sections={(_, countryOptions) => ({
        first: <BusinessFields countries={countryOptions} />,
        addressHint: "The company's registered address.",
        then: <BusinessOwnershipFields />,
      })}
    />
  );
}

function BusinessFields({ countries }: { countries: { value: string; label: string }[] }) {
  return (
    <>
      <Section legend="About the company" hint="As shown on the company's registration documents.">
        <TextField path="name" label="Company name" autoComplete="organization" wide />
        <TextField path="number" label="Company registration number" autoComplete="off" />
        <TextField path="incorporation" label="Date of incorporation" type="date" autoComplete="off" />
        <SelectField
          path="country"
          label="Country of incorporation"
          options={countries}
          placeholder="Select a country"
        />
        <TextField
          path="nature"
          label="Nature of business"
          hint="What the company does, for example: Wholesale of coffee."
          autoComplete="off"
        />
        <TextField
          path="turnover"
          label="Annual turnover"
          inputMode="decimal"
          autoComplete="off"
          hint="Last financial year. For example: 250000."
        />
        <TextField
          path="website"
          label="Website"
          type="url"
          inputMode="url"
          autoComplete="url"
          placeholder="https://example.com"
          optional
        />
      </Section>
      <Section legend="Contact person" hint="The person we can talk to about this account.">
        <TextField path="first" label="First name" autoComplete="given-name" />
        <TextField path="last" label="Last name" autoComplete="family-name" />
        <TextField path="dob" label="Date of birth" type="date" autoComplete="bday" hint="They must be 18 or older." />
        <TextField
          path="phone"
          label="Phone number"
          type="tel"
          autoComplete="tel"
          placeholder="+44 20 7946 0000"
          hint="In international format, starting with + and the country code."
        />
      </Section>
    </>
  );
}

function BusinessOwnershipFields() {
  return (
    <Section legend="Ownership and purpose">
      <TextList
        path="ubos"
        legend="Ultimate beneficial owners"
        hint="Everyone who owns or controls 25% or more of the company, directly or indirectly."
        itemLabel="Ultimate beneficial owner full name"
        addLabel="Add another owner"
        removeLabel="Remove beneficial owner"
      />
      <TextList
        path="directors"
        legend="Directors"
        hint="Every director of the company."
        itemLabel="Director full name"
        addLabel="Add another director"
        removeLabel="Remove director"
      />
      <CheckboxList
        path="purpose"
        legend="What will the company use the account for?"
        hint="Choose all that apply."
        options={BUSINESS_PURPOSES}
      />
    </Section>
  );
}

/** The most rows a repeatable list offers (the server's limit). */
const MAX_LIST_ROWS = 20;

/**
 * A repeatable list of one-line texts with Add and Remove buttons; at least one row is shown.
 * Errors: `path` (the list) under the group, `path.N` under row N.
 */
function TextList(
  { path, legend, hint, itemLabel, addLabel, removeLabel }: {
    path: string;
    legend: string;
    hint?: ReactNode;
    itemLabel: string;
    addLabel: string;
    /** The accessible name of row N's Remove button: "Remove beneficial owner 2". */
    removeLabel: string;
  },
) {
  const { values, errors, change, clearErrors } = useForm();
  const id = fieldId(path);
  const rows = (getIn(values, path) as string[] | undefined) ?? [];
  const shown = rows.length ? rows : [""];
  const error = errors[path];
  const focusRow = useRef<number | null>(null);

  useEffect(() => {
    if (focusRow.current === null) return;
    document.getElementById(fieldId(`${path}.${focusRow.current}`))?.focus();
    focusRow.current = null;
  });

  const replace = (next: string[], focus: number) => {
    // Rows moved: a message about row N would now sit under another row.
    clearErrors(path);
    focusRow.current = focus;
    change(path, next);
  };

  return (
    <fieldset id={id} className="min-w-0 sm:col-span-2" aria-describedby={describedBy(id, hint, error)}>
      <legend className={LABEL}>{legend}</legend>
      <Messages id={id} hint={hint} error={error} />
      <ol className="mt-2 flex flex-col gap-3">
        {shown.map((row, index) => {
          const rowPath = `${path}.${index}`;
          const rowId = fieldId(rowPath);
          const rowError = errors[rowPath];
          return (
            <li key={index}>
              <label htmlFor={rowId} className={LABEL}>
                {itemLabel}
                {shown.length > 1 ? <span className="sr-only">{` ${index + 1} of ${shown.length}`}</span> : null}
              </label>
              <div className="flex items-start gap-2">
                <input
                  id={rowId}
                  name={rowPath}
                  type="text"
                  autoComplete="off"
                  required
                  aria-invalid={rowError ? true : undefined}
                  aria-describedby={rowError ? `${rowId}-error` : undefined}
                  value={row}
                  onChange={(event) => change(rowPath, event.currentTarget.value)}
                  className={inputClass(Boolean(rowError))}
                />
                <button
                  type="button"
                  className="btn-ghost mt-1 shrink-0"
                  aria-label={`${removeLabel} ${index + 1}`}
                  disabled={shown.length <= 1}
                  onClick={() => replace(shown.filter((_, i) => i !== index), Math.max(0, index - 1))}
                >
                  Remove
                </button>
              </div>
              {rowError ? <p id={`${rowId}-error`} className={ERROR}>{rowError}</p> : null}
            </li>
          );
        })}
      </ol>
      <button
        type="button"
        className="btn-ghost mt-3 border border-neutral-300 dark:border-neutral-700"
        disabled={shown.length >= MAX_LIST_ROWS}
        onClick={() => replace([...shown, ""], shown.length)}
      >
        {addLabel}
      </button>
    </fieldset>
  );
}
