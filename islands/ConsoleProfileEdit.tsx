import type { FormEvent } from "react";
import { ADDRESS_PARTS, PROFILE_FIELDS, type ProfileField } from "../lib/profile-edit.ts";
import { changeProfile } from "./console/calls.ts";
import { notify } from "./lib/notification-store.ts";
import { withQueries } from "./lib/query-client.tsx";
import { FormAlert } from "./ui/alert.tsx";
import { Field, SelectField, TextField } from "./ui/field.tsx";
import { SubmitButton } from "./ui/submit-button.tsx";
import { useInPlace } from "./ui/take-focus.ts";
import { useForm } from "./ui/use-form.ts";

export interface ConsoleProfileEditProps {
  customer: { id: number; name: string; type: "Personal" | "Business" };
  /** The profile as saved (the profiles row's JSON). */
  saved: Record<string, unknown>;
}

type Typed = Record<string, string | Record<string, string>>;

const str = (v: unknown) => (v === null || v === undefined ? "" : String(v));

/** A field as the form types it: lists one entry a line, yes/no as "yes" or "no", an address by its parts. */
function typed(field: ProfileField, value: unknown): string | Record<string, string> {
  if (field.kind === "address") {
    const a = value && typeof value === "object" ? value as Record<string, unknown> : {};
    return Object.fromEntries(ADDRESS_PARTS.map(([part]) => [part, str(a[part])]));
  }
  if (field.kind === "list") return Array.isArray(value) ? value.map(str).join("\n") : "";
  if (field.kind === "yesno") return value === true ? "yes" : value === false ? "no" : "";
  return str(value);
}

/** A typed field as the profile holds it. */
function sent(field: ProfileField, value: string | Record<string, string>): unknown {
  if (typeof value !== "string") return value;
  if (field.kind === "list") return value.split("\n").map((line) => line.trim()).filter(Boolean);
  if (field.kind === "yesno") return value === "yes" ? true : value === "no" ? false : null;
  return value;
}

/**
 * Support changes a customer's saved profile on their console page (decision 078): the details
 * are the customer's own form's, prefilled; only the fields changed here are sent
 * (PUT console/users/{id}/profile), with the reason kept for the file. The server checks them by
 * the customer's own rules (a 422 shows each problem under its field) and emails the customer which
 * details changed. The page is loaded again afterwards, so its Profile card and audit trail show
 * the change.
 */
function ConsoleProfileEdit({ customer, saved }: ConsoleProfileEditProps) {
  const fields = PROFILE_FIELDS[customer.type];
  const initial: Typed = Object.fromEntries(fields.map((field) => [field.key, typed(field, saved[field.key])]));
  // The form replaces its button: it takes the keyboard (its first field is a Tab away), and Cancel
  // or Escape give it back to the button.
  const edit = useInPlace<HTMLFormElement>();
  const form = useForm({
    call: changeProfile,
    idempotent: true,
    values: { changes: initial, reason: "" },
    onSuccess() {
      notify({ title: "Profile changed", description: `${customer.name}: the customer is emailed.`, color: "success" });
      location.reload();
    },
  });

  if (!edit.open) {
    return (
      <div>
        <button type="button" className="btn-outline" aria-expanded={false} ref={edit.opener} onClick={edit.show}>
          Change the profile
        </button>
      </div>
    );
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const reason = form.values.reason.trim();
    if (!reason) return form.show({ reason: "Give the reason: it is kept for the file." });
    const changes: Record<string, unknown> = {};
    for (const field of fields) {
      const value = form.values.changes[field.key];
      if (JSON.stringify(value) !== JSON.stringify(initial[field.key])) changes[field.key] = sent(field, value);
    }
    void form.submit({ params: { id: String(customer.id) }, body: { changes, reason } });
  }

  /** The first problem at a field or under it (a list's entries: "changes.directors.1"). */
  const problemOf = (path: string) =>
    form.fields[path] ?? Object.entries(form.fields).find(([p]) => p.startsWith(`${path}.`))?.[1];

  const control = (field: ProfileField) => {
    const id = `profile-edit-${field.key}`;
    const path = `changes.${field.key}`;
    const value = form.values.changes[field.key];
    const error = problemOf(path);
    if (field.kind === "address") {
      const address = value as Record<string, string>;
      return (
        <fieldset key={field.key} className="col-span-full grid gap-3 sm:grid-cols-2">
          <legend className="mb-1 field-label">{field.label}</legend>
          {ADDRESS_PARTS.map(([part, label]) => (
            <TextField
              key={part}
              id={`${id}-${part}`}
              label={label}
              optional={part === "line2" || part === "region"}
              value={address[part]}
              error={form.fields[`${path}.${part}`]}
              autoComplete="off"
              onChange={(event) => form.set(`${path}.${part}`, event.currentTarget.value)}
            />
          ))}
          {form.fields[path] ? <p className="field-error">{form.fields[path]}</p> : null}
        </fieldset>
      );
    }
    const text = value as string;
    const change = (next: string) => form.set(path, next);
    if (field.kind === "yesno") {
      return (
        <SelectField
          key={field.key}
          id={id}
          label={field.label}
          value={text}
          error={error}
          onChange={(event) => change(event.currentTarget.value)}
        >
          <option value="yes">Yes</option>
          <option value="no">No</option>
        </SelectField>
      );
    }
    if (field.kind === "list") {
      return (
        <Field key={field.key} id={id} label={field.label} hint="One entry a line." error={error}>
          {(attributes) => (
            <textarea
              {...attributes}
              rows={3}
              value={text}
              onChange={(event) => change(event.currentTarget.value)}
              className="field-control"
            />
          )}
        </Field>
      );
    }
    return (
      <TextField
        key={field.key}
        id={id}
        label={field.label}
        optional={field.optional}
        required={false}
        value={text}
        error={error}
        autoComplete="off"
        placeholder={field.kind === "date" ? "YYYY-MM-DD" : undefined}
        onChange={(event) => change(event.currentTarget.value)}
      />
    );
  };

  return (
    <form
      ref={edit.first}
      tabIndex={-1}
      onSubmit={submit}
      onKeyDown={edit.onKeyDown}
      noValidate
      aria-label={`Change the profile of ${customer.name}`}
      className="flex flex-col gap-4 focus:outline-none"
    >
      <p className="text-sm">
        Change only what the customer asked for and you hold proof of: the fields you change are checked by the
        customer's own rules, kept with the reason in the audit trail, and the customer is emailed which details
        changed.
      </p>
      <FormAlert
        error={form.error}
        fields={form.fields}
        shown={(path) => path === "reason" || (path.startsWith("changes.") && path !== "changes")}
      />
      <div className="grid gap-3 sm:grid-cols-2">{fields.map(control)}</div>
      <TextField
        id="profile-edit-reason"
        label="Reason (kept for the file)"
        value={form.values.reason}
        error={form.fields.reason}
        autoComplete="off"
        required={false}
        onChange={(event) => form.set("reason", event.currentTarget.value)}
      />
      <div className="flex flex-wrap gap-3">
        <SubmitButton pending={form.submitting} pendingLabel="Saving…" className="btn-primary">
          Save the changes
        </SubmitButton>
        <button type="button" className="btn-ghost" onClick={edit.dismiss}>Cancel</button>
      </div>
    </form>
  );
}

export default withQueries(ConsoleProfileEdit);
