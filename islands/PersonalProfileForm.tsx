import { withQueries } from "./lib/query-client.tsx";
import type { Values } from "./onboarding/profile-context.ts";
import { CheckboxList, PathCheckbox, PathSelectField, PathTextField, Section } from "./onboarding/profile-fields.tsx";
import { type CountryOption, ProfileForm } from "./onboarding/profile-form.tsx";

export interface PersonalProfileFormProps {
  countries: CountryOption[];
  /** Every field of the form, the saved answers or empty (lib/profile-values.ts: profileValues). */
  values: Values;
  /**
   * Once the identity check has started, why the name and date of birth it binds are read-only and
   * how to have them changed (decision 085); absent while they are the customer's to change.
   */
  bound?: string;
}

const EMPLOYMENT = ["Employed", "Self-employed", "Unemployed", "Retired", "Student"];
/** Employment answers for which a job title is not asked (the server agrees). */
const NO_POSITION = ["unemployed", "retired", "student"];
const FUND_SOURCES = ["Salary", "Savings", "Business income", "Investments", "Inheritance", "Other"];
const SOURCES = ["Salary", "Savings", "Business income", "Investments", "Property sale", "Other"];
const PERSONAL_PURPOSES = [
  "Family support",
  "Property purchase",
  "Investments",
  "Paying bills abroad",
  "Travel",
  "Other",
];

/**
 * The profile of a personal customer (register-personal): about them, their identity document,
 * their address, their work and money, and a few more questions. The frame (posting, errors, the
 * address) is onboarding/profile-form.tsx's.
 */
function PersonalProfileForm({ countries, values, bound }: PersonalProfileFormProps) {
  return (
    <ProfileForm
      values={values}
      countries={countries}
      bound={bound}
      // The name of whom the customer acts for goes only while they say they act for someone.
      payload={(values) => (values.agency ? values : { ...values, agency_of: "" })}
      sections={(values) => ({
        first: <PersonalFields />,
        addressHint: "Where you live now.",
        then: <PersonalMoneyFields values={values} />,
        more: <MoreQuestions agency={values.agency === true} />,
        boundCountry: true,
      })}
    />
  );
}

function PersonalFields() {
  return (
    <>
      <Section legend="About you" hint="As shown on your identity document.">
        <PathTextField path="first" label="First name" autoComplete="given-name" identity />
        <PathTextField path="last" label="Last name" autoComplete="family-name" identity />
        <PathTextField
          identity
          path="dob"
          label="Date of birth"
          type="date"
          autoComplete="bday"
          hint="You must be 18 or older."
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
      <Section legend="Identity document">
        <PathTextField
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
      <PathSelectField path="employment" label="Employment status" options={EMPLOYMENT} />
      <PathTextField
        path="position"
        label="Job title"
        autoComplete="organization-title"
        optional={noPosition}
        hint={noPosition ? undefined : "For example: Nurse, Software engineer, Shop owner."}
      />
      <PathTextField
        path="expected"
        label="Expected annual amount you'll send"
        inputMode="decimal"
        autoComplete="off"
        hint="Roughly, in total over a year. For example: 20000."
      />
      <PathSelectField path="fundSource" label="Main source of funds" options={FUND_SOURCES} />
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

function MoreQuestions({ agency }: { agency: boolean }) {
  return (
    <>
      <PathCheckbox path="personal" label="This account is for my personal use" />
      <PathCheckbox path="agency" label="I am acting on behalf of someone else" />
      {agency
        ? (
          <PathTextField
            path="agency_of"
            label="Who are you acting for?"
            hint="The full name of the person or company."
            wide
          />
        )
        : null}
      <PathCheckbox
        path="public"
        label="I am, or am close to, a politically exposed person"
        hint="Someone who holds, or held in the last 12 months, a prominent public job, or their family or close associates."
      />
      <PathCheckbox path="denial" label="I have been refused a financial service before" />
    </>
  );
}

export default withQueries(PersonalProfileForm);
