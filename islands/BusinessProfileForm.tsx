import { withQueries } from "./lib/query-client.tsx";
import type { Values } from "./onboarding/profile-context.ts";
import { CheckboxList, PathSelectField, PathTextField, Section, TextList } from "./onboarding/profile-fields.tsx";
import { type CountryOption, ProfileForm } from "./onboarding/profile-form.tsx";

export interface BusinessProfileFormProps {
  countries: CountryOption[];
  /** Every field of the form, the saved answers or empty (lib/profile-values.ts: profileValues). */
  values: Values;
  /**
   * Once the identity check has started, why the name and date of birth it binds are read-only and
   * how to have them changed (decision 085); absent while they are the customer's to change.
   */
  bound?: string;
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
 * (posting, errors, the address) is onboarding/profile-form.tsx's.
 */
function BusinessProfileForm({ countries, values, bound }: BusinessProfileFormProps) {
  return (
    <ProfileForm
      values={values}
      countries={countries}
      bound={bound}
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
        <PathTextField path="name" label="Company name" autoComplete="organization" wide />
        <PathTextField path="number" label="Company registration number" autoComplete="off" />
        <PathTextField path="incorporation" label="Date of incorporation" type="date" autoComplete="off" />
        <PathSelectField
          path="country"
          label="Country of incorporation"
          options={countries}
          placeholder="Select a country"
        />
        <PathTextField
          path="nature"
          label="Nature of business"
          hint="What the company does, for example: Wholesale of coffee."
          autoComplete="off"
        />
        <PathTextField
          path="turnover"
          label="Annual turnover"
          inputMode="decimal"
          autoComplete="off"
          hint="Last financial year. For example: 250000."
        />
        <PathTextField
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
        <PathTextField path="first" label="First name" autoComplete="given-name" identity />
        <PathTextField path="last" label="Last name" autoComplete="family-name" identity />
        <PathTextField
          identity
          path="dob"
          label="Date of birth"
          type="date"
          autoComplete="bday"
          hint="They must be 18 or older."
        />
        <PathTextField
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

export default withQueries(BusinessProfileForm);
