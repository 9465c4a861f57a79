/**
 * The approval rule's form (PUT account/approvals; an owner or admin, decision 028): which payments
 * need a second person's approval (none, every payment, or payments of at least an amount, one
 * amount per currency) and whether the first payment to a new recipient or to changed bank details
 * does. The server's refusals (a wrong amount, nobody else on the account to approve) show under
 * the field they are about, in the server's words.
 */
import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useRef } from "react";
import { notify } from "../lib/notification-store.ts";
import { approvalRuleKeys } from "../lib/query-keys.ts";
import { FormAlert } from "../ui/alert.tsx";
import { AmountInput } from "../ui/amount.tsx";
import { type CurrencyOption, CurrencySelect } from "../ui/currency-select.tsx";
import { CheckboxField } from "../ui/field.tsx";
import { SubmitButton } from "../ui/submit-button.tsx";
import { type Problems, useForm } from "../ui/use-form.ts";
import { type ApprovalRule, setApprovalRule } from "./calls.ts";

type Mode = ApprovalRule["mode"];

interface Threshold {
  currency: string;
  amount: string;
}

const MODES: { value: Mode; label: string }[] = [
  { value: "none", label: "No payment needs approval" },
  { value: "all", label: "Every payment needs approval" },
  { value: "above", label: "Payments of an amount or more need approval" },
];

/** The rows the form starts from: the rule's amounts, or one empty row in the first currency. */
function rowsOf(rule: ApprovalRule, currencies: readonly CurrencyOption[]): Threshold[] {
  const rows = Object.entries(rule.thresholds).map(([currency, amount]) => ({ currency, amount }));
  return rows.length ? rows : [{ currency: currencies[0]?.code ?? "GBP", amount: "" }];
}

/** What the form finds wrong before sending: an amount left empty, a currency given twice. */
function problemsOf(rows: Threshold[]): Problems {
  const problems: Problems = {};
  rows.forEach((row, i) => {
    if (!row.amount.trim()) problems[`rows.${i}.amount`] = `Enter the amount in ${row.currency}, or remove the row.`;
    if (rows.findIndex((r) => r.currency === row.currency) < i) {
      problems[`rows.${i}.currency`] = `${row.currency} is given twice: one amount per currency.`;
    }
  });
  return problems;
}

export function ApprovalRuleForm({ accountRef, rule, currencies }: {
  accountRef: string;
  rule: ApprovalRule;
  currencies: readonly CurrencyOption[];
}) {
  const queries = useQueryClient();
  const form = useForm({
    call: setApprovalRule,
    idempotent: true,
    values: { mode: rule.mode, rows: rowsOf(rule, currencies), new_recipient: rule.new_recipient },
    invalidates: [approvalRuleKeys.of(accountRef)],
    onSuccess(saved) {
      queries.setQueryData(approvalRuleKeys.of(accountRef), saved);
      // The amounts as the server wrote them ("100" is kept as "100.00").
      if (saved.mode === "above") form.set("rows", rowsOf(saved, currencies));
      notify({
        title: "Approval rule saved",
        description: "It applies to the payments prepared from now on.",
        color: "success",
      });
    },
  });
  const { mode, rows } = form.values;
  const fields = form.fields;
  // The server names an amount by its currency (thresholds.GBP); the form's rows by their place.
  const amountProblem = (i: number) => fields[`rows.${i}.amount`] ?? fields[`thresholds.${rows[i].currency}`];
  const shown = (path: string) =>
    ["mode", "thresholds", "new_recipient"].includes(path) || path.startsWith("rows.") ||
    (mode === "above" && rows.some((r) => path === `thresholds.${r.currency}`));

  // After a row is added or removed, focus goes to a control of the row it concerns, not the page.
  const focusAfter = useRef<string | null>(null);
  useEffect(() => {
    if (!focusAfter.current) return;
    document.getElementById(focusAfter.current)?.focus();
    focusAfter.current = null;
  });

  const setRows = (next: Threshold[]) => {
    form.set("rows", next);
    form.clearProblems("rows");
    form.clearProblems("thresholds");
  };
  const addRow = () => {
    const unused = currencies.find((c) => !rows.some((r) => r.currency === c.code));
    setRows([...rows, { currency: unused?.code ?? currencies[0]?.code ?? "GBP", amount: "" }]);
    focusAfter.current = `approval-threshold-${rows.length}-currency`;
  };
  const removeRow = (i: number) => {
    setRows(rows.filter((_, j) => j !== i));
    focusAfter.current = `approval-threshold-${Math.max(0, i - 1)}-amount`;
  };
  const changeRow = (i: number, key: keyof Threshold, value: string) => {
    form.clearProblems(`thresholds.${rows[i].currency}`);
    form.clearProblems("thresholds");
    form.set(`rows.${i}.${key}`, value);
  };

  function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (mode === "above") {
      const problems = problemsOf(rows);
      if (Object.keys(problems).length) return form.show(problems);
    }
    const thresholds = mode === "above" ? Object.fromEntries(rows.map((r) => [r.currency, r.amount.trim()])) : {};
    void form.submit({ body: { mode, thresholds, new_recipient: form.values.new_recipient } });
  }

  return (
    <form onSubmit={save} noValidate aria-label="Approval rule" className="flex min-w-0 flex-col gap-4">
      <FormAlert error={form.error} fields={fields} shown={shown} />
      <fieldset
        className="min-w-0"
        aria-describedby={fields.mode ? "approval-mode-error" : undefined}
      >
        <legend className="field-label">Which payments need approval</legend>
        <div className="mt-2 flex flex-col gap-2">
          {MODES.map((m) => (
            <label key={m.value} className="flex cursor-pointer items-start gap-3 text-sm">
              <input
                type="radio"
                name="approval-mode"
                value={m.value}
                checked={mode === m.value}
                onChange={() => form.set("mode", m.value)}
                aria-invalid={fields.mode ? true : undefined}
                className="mt-0.5 size-4 shrink-0 accent-primary-700"
              />
              <span>{m.label}</span>
            </label>
          ))}
        </div>
        {fields.mode ? <p id="approval-mode-error" className="mt-1 field-error">{fields.mode}</p> : null}
      </fieldset>

      {mode === "above"
        ? (
          <fieldset
            className="flex min-w-0 flex-col gap-3"
            aria-describedby={fields.thresholds ? "approval-thresholds-error" : "approval-thresholds-hint"}
          >
            <legend className="field-label">The amount from which a payment needs approval</legend>
            <p id="approval-thresholds-hint" className="field-hint">
              One amount per currency, compared with the total a payment takes from a balance in that currency (fee
              included) and with what a recipient in that currency gets. A payment with neither side listed needs no
              approval for its amount.
            </p>
            <ul className="flex flex-col gap-3">
              {rows.map((row, i) => (
                <li key={i} className="flex flex-wrap items-start gap-2">
                  <CurrencySelect
                    id={`approval-threshold-${i}-currency`}
                    label={`Currency ${i + 1}`}
                    hideLabel
                    currencies={currencies}
                    value={row.currency}
                    onChange={(event) => changeRow(i, "currency", event.currentTarget.value)}
                    error={fields[`rows.${i}.currency`]}
                    fieldClassName="min-w-0 flex-1 basis-48"
                  />
                  <AmountInput
                    id={`approval-threshold-${i}-amount`}
                    label={`Amount in ${row.currency}`}
                    hideLabel
                    placeholder="1000.00"
                    value={row.amount}
                    onChange={(event) => changeRow(i, "amount", event.currentTarget.value)}
                    error={amountProblem(i)}
                    fieldClassName="w-36"
                  />
                  {rows.length > 1
                    ? (
                      <button
                        type="button"
                        className="btn-ghost"
                        onClick={() => removeRow(i)}
                        aria-label={`Remove the ${row.currency} amount`}
                      >
                        Remove
                      </button>
                    )
                    : null}
                </li>
              ))}
            </ul>
            {fields.thresholds
              ? <p id="approval-thresholds-error" className="field-error">{fields.thresholds}</p>
              : null}
            {rows.length < currencies.length
              ? (
                <div>
                  <button type="button" className="btn-outline" onClick={addRow}>Add a currency</button>
                </div>
              )
              : null}
          </fieldset>
        )
        : null}

      <CheckboxField
        id="approval-new-recipient"
        label="The first payment to a new recipient or to changed bank details needs approval"
        hint="With any choice above: until one payment to those details has been approved."
        checked={form.values.new_recipient}
        onChange={(event) => form.set("new_recipient", event.currentTarget.checked)}
        error={fields.new_recipient}
      />
      <div>
        <SubmitButton pending={form.submitting} pendingLabel="Saving…" className="btn-primary">
          Save the rule
        </SubmitButton>
      </div>
    </form>
  );
}
