/**
 * A recipient's bank-detail fields, drawn from the requirements answer for their currency and bank
 * country (labels, hints, examples, which are required), each checked while it is typed with the
 * rules the server runs again (lib/bank-details/checks.ts). A field's problem shows once the field
 * was left, or as soon as what is typed is as long as a complete value, so a customer is not told
 * off for an IBAN they are halfway through.
 */
import { checkBankDetails } from "../../lib/bank-details/checks.ts";
import { type DetailKey, tidyDetail } from "../../lib/bank-details/formats.ts";
import { SelectField, TextField } from "../ui/field.tsx";
import type { Requirement, RequirementField } from "./calls.ts";

/** The problems of typed bank details, by field, as the browser finds them. */
export function bankProblems(requirement: Requirement, details: Readonly<Record<string, string>>) {
  return checkBankDetails(requirement, details).problems;
}

/** Whether what is typed is as long as a complete value (the field's example, tidied). */
function complete(field: RequirementField, typed: string): boolean {
  const value = tidyDetail(field.rule, typed);
  return value !== "" && value.length >= tidyDetail(field.rule, field.example).length;
}

/** Codes of letters and digits: no spelling, no autocorrection, capitals on phones. */
const CODE_RULES = new Set(["iban", "bic", "ifsc", "account_number"]);

export function BankFields({ idPrefix, requirement, details, left, problems, onChange, onLeave }: {
  idPrefix: string;
  requirement: Requirement;
  details: Readonly<Record<string, string>>;
  /** The fields the customer has left (or tried to send). */
  left: ReadonlySet<string>;
  /** The form's problems by path ("details.iban"): the server's, or those found when sending. */
  problems: Readonly<Record<string, string>>;
  onChange: (key: DetailKey, value: string) => void;
  onLeave: (key: DetailKey) => void;
}) {
  const found = bankProblems(requirement, details);
  return (
    <>
      {requirement.fields.map((field) => {
        const typed = details[field.key] ?? "";
        const error = problems[`details.${field.key}`] ??
          (left.has(field.key) || complete(field, typed) ? found[field.key] : undefined);
        const common = {
          id: `${idPrefix}-${field.key}`,
          label: field.label,
          optional: !field.required,
          error,
          value: typed,
          onBlur: () => onLeave(field.key),
        };
        if (field.options) {
          return (
            <SelectField
              key={field.key}
              {...common}
              hint={field.hint}
              onChange={(event) => onChange(field.key, event.currentTarget.value)}
            >
              <option value="">Choose…</option>
              {field.options.map((option) => <option key={option.value} value={option.value}>{option.label}</option>)}
            </SelectField>
          );
        }
        return (
          <TextField
            key={field.key}
            {...common}
            hint={`${field.hint} For example: ${field.example}`}
            autoComplete="off"
            spellCheck={false}
            autoCapitalize={CODE_RULES.has(field.key) ? "characters" : "off"}
            inputMode={/^\[0-9\]\{[\d,]+\}$/.test(field.pattern) ? "numeric" : undefined}
            className="font-mono"
            onChange={(event) => onChange(field.key, event.currentTarget.value)}
          />
        );
      })}
    </>
  );
}
