import { useEffect, useMemo, useRef, useState } from "react";
import { api, ApiCallError, isAbort, newIdempotencyKey } from "./lib/api.ts";
import {
  Alert,
  CheckboxField,
  CheckboxList,
  errorText,
  type FieldErrors,
  FormProvider,
  type FormState,
  getIn,
  Section,
  SelectField,
  setIn,
  TextField,
  TextList,
  useFocusFirstInvalid,
  type Values,
  withoutErrorsFor,
  withoutErrorsUnder,
} from "./lib/profile-form.tsx";

export interface CountryOption {
  /** ISO 3166-1 alpha-2, upper case. */
  code: string;
  name: string;
  /** False where addresses carry no postcode (the field is then optional); true when absent. */
  postcode?: boolean;
}

export interface ProfileFormProps {
  type: "Personal" | "Business";
  countries: CountryOption[];
  /** The saved profile, to edit it; null or absent for a new one. */
  initial?: Record<string, unknown> | null;
}

export const EMPLOYMENT = ["Employed", "Self-employed", "Unemployed", "Retired", "Student"];
/** Employment answers for which a job title is not asked (the server agrees). */
const NO_POSITION = ["unemployed", "retired", "student"];
export const FUND_SOURCES = ["Salary", "Savings", "Business income", "Investments", "Inheritance", "Other"];
export const SOURCES = ["Salary", "Savings", "Business income", "Investments", "Property sale", "Other"];
export const PERSONAL_PURPOSES = [
  "Family support",
  "Property purchase",
  "Investments",
  "Paying bills abroad",
  "Travel",
  "Other",
];
export const BUSINESS_PURPOSES = [
  "Paying suppliers",
  "Payroll abroad",
  "Receiving from customers",
  "Treasury / FX",
  "Other",
];
export const DISCOVERY = [
  "Search engine",
  "Social media",
  "Friend, family or colleague",
  "Online advert",
  "Comparison website",
  "News or press",
  "Other",
];

const EMPTY_ADDRESS = { line1: "", line2: "", city: "", region: "", postcode: "", country: "" };

/** What each type's form sends, with its empty values: exactly the fields of SPEC.md section 3. */
const BLANK: Record<ProfileFormProps["type"], Values> = {
  Personal: {
    first: "",
    last: "",
    dob: "",
    phone: "",
    address: EMPTY_ADDRESS,
    identity: "",
    employment: "",
    position: "",
    expected: "",
    fundSource: "",
    source: [],
    purpose: [],
    discovery: "",
    personal: false,
    agency: false,
    agency_of: "",
    public: false,
    denial: false,
  },
  Business: {
    name: "",
    number: "",
    incorporation: "",
    country: "",
    address: EMPTY_ADDRESS,
    nature: "",
    turnover: "",
    website: "",
    first: "",
    last: "",
    phone: "",
    dob: "",
    discovery: "",
    ubos: [""],
    directors: [""],
    purpose: [],
  },
};

/**
 * The saved profile laid over the blank one, field by field and typed like the blank: unknown keys
 * (compliance, accountManager, created) are left out, so they are never posted back.
 */
export function initialValues(blank: Values, saved: unknown): Values {
  const from = saved && typeof saved === "object" ? saved as Record<string, unknown> : {};
  const out: Values = {};
  for (const [key, empty] of Object.entries(blank)) {
    const v = from[key];
    if (Array.isArray(empty)) {
      const list = Array.isArray(v) ? v.map((item) => String(item ?? "")) : [];
      out[key] = list.length || !empty.length ? list : empty;
    } else if (typeof empty === "boolean") out[key] = typeof v === "boolean" ? v : empty;
    else if (typeof empty === "object" && empty) out[key] = initialValues(empty as Values, v);
    else out[key] = v === null || v === undefined ? "" : v instanceof Date ? v.toISOString().slice(0, 10) : String(v);
  }
  return out;
}

/** Whether some input of the form shows the message about `path` (see profile-form.tsx). */
export function displayed(values: Values, path: string): boolean {
  const [top, sub] = path.split(".");
  if (!(top in values)) return false;
  if (top === "agency_of") return values.agency === true;
  const value = values[top];
  // Lists show a message about the list or any entry; the address shows its parts, not itself.
  if (Array.isArray(value) || typeof value !== "object" || value === null) return true;
  return sub !== undefined && sub in value;
}

/**
 * The KYC profile form (SPEC.md section 3): every field of the customer's type, posted as JSON to
 * account/profile; the server validates, and the API layer follows its redirect to /identity. A 422
 * puts each `fields` message under its input (dotted paths such as "address.country" or "ubos.1"),
 * the general `error` in an alert at the top, and focuses the first invalid input.
 */
export default function ProfileForm({ type, countries, initial }: ProfileFormProps) {
  const [values, setValues] = useState<Values>(() => initialValues(BLANK[type], initial));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [alert, setAlert] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The form is sent by script only: until hydration the button stays disabled, so a click never
  // sends the profile as a native form submission.
  const [ready, setReady] = useState(false);
  const [failures, setFailures] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  const alertRef = useRef<HTMLDivElement>(null);
  // The same Idempotency-Key while the same profile is sent again (a retry), a new one once it
  // changes (the server replays the answer to a repeated key and refuses it with another body).
  const lastWrite = useRef<{ body: string; key: string } | null>(null);

  useEffect(() => setReady(true), []);
  useFocusFirstInvalid(failures, formRef, alertRef);

  const form = useMemo<FormState>(() => ({
    values,
    errors,
    change(path, value) {
      setValues((current) => setIn(current, path, value));
      setErrors((current) => withoutErrorsFor(current, path));
    },
    clearErrors(path) {
      setErrors((current) => withoutErrorsUnder(current, path));
    },
  }), [values, errors]);

  const countryOptions = useMemo(() => countries.map((c) => ({ value: c.code, label: c.name })), [countries]);
  const addressCountry = countries.find((c) => c.code === getIn(values, "address.country"));
  const postcodeOptional = addressCountry?.postcode === false;

  async function submit(event: { preventDefault(): void }) {
    event.preventDefault();
    if (busy) return;
    const payload = type === "Personal" && !values.agency ? { ...values, agency_of: "" } : values;
    setBusy(true);
    setAlert(null);
    try {
      const body = JSON.stringify(payload);
      if (lastWrite.current?.body !== body) lastWrite.current = { body, key: newIdempotencyKey() };
      await api.post("account/profile", payload, { idempotencyKey: lastWrite.current.key });
      // Saved: the API layer is already on its way to /identity; the button stays disabled.
    } catch (err) {
      setBusy(false);
      if (isAbort(err)) return;
      setErrors(err instanceof ApiCallError && err.fields ? err.fields : {});
      setAlert(errorText(err));
      setFailures((n) => n + 1);
    }
  }

  const marked = Object.keys(errors).filter((path) => displayed(values, path)).length;
  // Messages no field shows (a path the form has no input for) are listed in the alert.
  const others = Object.entries(errors).filter(([path, problem]) => !displayed(values, path) && problem !== alert);

  return (
    <FormProvider value={form}>
      <form
        ref={formRef}
        method="post"
        noValidate
        onSubmit={submit}
        aria-busy={busy || undefined}
        className="flex flex-col gap-6"
      >
        {alert
          ? (
            <Alert alertRef={alertRef} title="Your details could not be saved">
              <p>{alert}</p>
              {others.length
                ? (
                  <ul className="mt-1 list-disc pl-5">
                    {others.map(([path, problem]) => <li key={path}>{problem}</li>)}
                  </ul>
                )
                : null}
              {marked > 1 ? <p className="mt-1">{`Check the ${marked} fields marked below.`}</p> : null}
            </Alert>
          )
          : null}

        {type === "Personal" ? <PersonalFields /> : <BusinessFields countries={countryOptions} />}

        <Section
          legend="Address"
          hint={type === "Personal" ? "Where you live now." : "The company's registered address."}
        >
          <TextField path="address.line1" label="Address line 1" autoComplete="address-line1" wide />
          <TextField path="address.line2" label="Address line 2" autoComplete="address-line2" optional wide />
          <TextField path="address.city" label="Town or city" autoComplete="address-level2" />
          <TextField path="address.region" label="County, state or region" autoComplete="address-level1" optional />
          <TextField
            path="address.postcode"
            label="Postcode"
            autoComplete="postal-code"
            optional={postcodeOptional}
            hint={postcodeOptional ? "Addresses in this country have no postcode." : undefined}
          />
          <SelectField
            path="address.country"
            label="Country"
            autoComplete="country"
            options={countryOptions}
            placeholder="Select a country"
          />
        </Section>

        {type === "Personal" ? <PersonalMoneyFields values={values} /> : <BusinessOwnershipFields />}

        <Section legend="A few more questions">
          {type === "Personal"
            ? (
              <>
                <CheckboxField path="personal" label="This account is for my personal use" />
                <CheckboxField path="agency" label="I am acting on behalf of someone else" />
                {values.agency
                  ? (
                    <TextField
                      path="agency_of"
                      label="Who are you acting for?"
                      hint="The full name of the person or company."
                      wide
                    />
                  )
                  : null}
                <CheckboxField
                  path="public"
                  label="I am, or am close to, a politically exposed person"
                  hint="Someone who holds, or held in the last 12 months, a prominent public job, or their family or close associates."
                />
                <CheckboxField path="denial" label="I have been refused a financial service before" />
              </>
            )
            : null}
          <SelectField path="discovery" label="How did you hear about us?" options={DISCOVERY} optional wide />
        </Section>

        <div className="flex justify-end">
          <button type="submit" className="btn-primary" disabled={!ready || busy}>
            {busy ? "Saving…" : "Save and continue"}
          </button>
        </div>
      </form>
    </FormProvider>
  );
}

function PersonalFields() {
  return (
    <>
      <Section legend="About you" hint="As shown on your identity document.">
        <TextField path="first" label="First name" autoComplete="given-name" />
        <TextField path="last" label="Last name" autoComplete="family-name" />
        <TextField path="dob" label="Date of birth" type="date" autoComplete="bday" hint="You must be 18 or older." />
        <TextField
          path="phone"
          label="Phone number"
          type="tel"
          autoComplete="tel"
          placeholder="+44 20 7946 0000"
          hint="In international format, starting with + and the country code."
        />
      </Section>
      <Section legend="Identity document">
        <TextField
          path="identity"
          label="Passport number"
          hint="The number of your passport, or of your national identity card if you have no passport."
          autoComplete="off"
          wide
        />
      </Section>
    </>
  );
}

function PersonalMoneyFields({ values }: { values: Values }) {
  const noPosition = NO_POSITION.includes(String(values.employment).toLowerCase());
  return (
    <Section legend="Your work and your money" hint="The law asks us where the money you send comes from.">
      <SelectField path="employment" label="Employment status" options={EMPLOYMENT} />
      <TextField
        path="position"
        label="Job title"
        autoComplete="organization-title"
        optional={noPosition}
        hint={noPosition ? undefined : "For example: Nurse, Software engineer, Shop owner."}
      />
      <TextField
        path="expected"
        label="Expected annual amount you'll send"
        inputMode="decimal"
        autoComplete="off"
        hint="Roughly, in total over a year. For example: 20000."
      />
      <SelectField path="fundSource" label="Main source of funds" options={FUND_SOURCES} />
      <CheckboxList
        path="source"
        legend="Where does the money you send come from?"
        hint="Choose all that apply."
        options={SOURCES}
      />
      <CheckboxList
        path="purpose"
        legend="What will you use the account for?"
        hint="Choose all that apply."
        options={PERSONAL_PURPOSES}
      />
    </Section>
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
