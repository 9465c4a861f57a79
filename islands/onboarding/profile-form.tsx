/**
 * The KYC profile form (SPEC.md section 3), what its two kinds share: islands/PersonalProfileForm.tsx
 * and islands/BusinessProfileForm.tsx each add the sections of their customer type, so a page loads
 * the form of its type only.
 *
 * Every field of the type is posted as JSON to account/profile; the server validates, and the API
 * layer follows its redirect to /identity. A 422 puts each `fields` message under its input (dotted
 * paths such as "address.country" or "ubos.1"), the general `error` in an alert at the top, and
 * focuses the first invalid input.
 */
import { type ReactNode, useMemo } from "react";
import { FormAlert } from "../ui/alert.tsx";
import { getIn } from "../ui/paths.ts";
import { SubmitButton } from "../ui/submit-button.tsx";
import { useForm } from "../ui/use-form.ts";
import { saveProfile } from "./calls.ts";
import { ProfileFormProvider, type Values } from "./profile-context.ts";
import { PathSelectField, PathTextField, Section } from "./profile-fields.tsx";

export interface CountryOption {
  /** ISO 3166-1 alpha-2, upper case. */
  code: string;
  name: string;
  /** False where addresses carry no postcode (the field is then optional); true when absent. */
  postcode?: boolean;
}

const DISCOVERY = [
  "Search engine",
  "Social media",
  "Friend, family or colleague",
  "Online advert",
  "Comparison website",
  "News or press",
  "Other",
];

/** Whether some input of the form shows the message about `path`. */
export function displayed(values: Values, path: string): boolean {
  const [top, sub] = path.split(".");
  if (!(top in values)) return false;
  if (top === "agency_of") return values.agency === true;
  const value = values[top];
  // Lists show a message about the list or any entry; the address shows its parts, not itself.
  if (Array.isArray(value) || typeof value !== "object" || value === null) return true;
  return sub !== undefined && sub in value;
}

/** What a customer type's form adds to the shared frame. */
export interface ProfileSections {
  /** The sections before the address. */
  first: ReactNode;
  /** The address section's hint. */
  addressHint: string;
  /** The sections after the address. */
  then: ReactNode;
  /** Questions of "A few more questions" before "How did you hear about us?". */
  more?: ReactNode;
  /** Whether the identity check binds the address's country (a person's address, not a company's). */
  boundCountry?: boolean;
}

/**
 * `values` are the form's values to start from, every field of the type (lib/profile-values.ts, on
 * the server); `sections` lays out the type's own fields around the shared ones; `payload` adjusts
 * what is sent (default: the values as they are).
 */
export function ProfileForm({ values: initial, countries, sections, payload = (values) => values, bound }: {
  values: Values;
  /** Why the details the identity check binds are read-only, once it has started (decision 085). */
  bound?: string;
  countries: CountryOption[];
  sections: (values: Values, countries: { value: string; label: string }[]) => ProfileSections;
  payload?: (values: Values) => Values;
}) {
  // The same Idempotency-Key while the same profile is sent again (a retry), a new one once it
  // changes (the server replays the answer to a repeated key and refuses it with another body).
  const form = useForm({ call: saveProfile, values: initial, idempotent: true, navigates: true });
  const { values, fields } = form;
  const countryOptions = useMemo(() => countries.map((c) => ({ value: c.code, label: c.name })), [countries]);
  const addressCountry = countries.find((c) => c.code === getIn(values, "address.country"));
  const postcodeOptional = addressCountry?.postcode === false;

  function submit(event: { preventDefault(): void }) {
    event.preventDefault();
    // Saved: the API layer is on its way to /identity; the button stays disabled.
    void form.submit({ body: payload(values) });
  }

  const marked = Object.keys(fields).filter((path) => displayed(values, path)).length;
  const { first, addressHint, then, more, boundCountry } = sections(values, countryOptions);

  return (
    <ProfileFormProvider value={{ ...form, bound }}>
      <form
        method="post"
        noValidate
        onSubmit={submit}
        aria-busy={form.submitting || undefined}
        className="flex flex-col gap-6"
      >
        <FormAlert
          title="Your details could not be saved"
          error={form.error}
          detail={marked > 1 ? `Check the ${marked} fields marked below.` : undefined}
          fields={fields}
          shown={(path) => displayed(values, path)}
          focusOnError
        />

        {first}

        <Section legend="Address" hint={addressHint}>
          <PathTextField path="address.line1" label="Address line 1" autoComplete="address-line1" wide />
          <PathTextField path="address.line2" label="Address line 2" autoComplete="address-line2" optional wide />
          <PathTextField path="address.city" label="Town or city" autoComplete="address-level2" />
          <PathTextField
            path="address.region"
            label="County, state or region"
            autoComplete="address-level1"
            optional
          />
          <PathTextField
            path="address.postcode"
            label="Postcode"
            autoComplete="postal-code"
            optional={postcodeOptional}
            hint={postcodeOptional ? "Addresses in this country have no postcode." : undefined}
          />
          <PathSelectField
            path="address.country"
            label="Country"
            autoComplete="country"
            options={countryOptions}
            placeholder="Select a country"
            // The check binds the country of a person's address, not a company's (decision 085).
            identity={boundCountry}
          />
        </Section>

        {then}

        <Section legend="A few more questions">
          {more}
          <PathSelectField path="discovery" label="How did you hear about us?" options={DISCOVERY} optional wide />
        </Section>

        {
          /* Sent by script only: the button waits for hydration, so a click never sends the profile as
            a native form submission. */
        }
        <div className="flex justify-end">
          <SubmitButton pending={form.submitting} pendingLabel="Saving…" className="btn-primary">
            Save and continue
          </SubmitButton>
        </div>
      </form>
    </ProfileFormProvider>
  );
}
