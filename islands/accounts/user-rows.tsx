/**
 * An account user's row, and under it (when opened) the form that changes their role or the
 * question that removes them. Only offered where the server would allow it: a manager, not for
 * themselves, and for an owner only to an owner (decision 028). The server decides anyway; its
 * refusal (the last owner, say) shows in the form.
 */
import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useRef } from "react";
import { notify } from "../lib/notification-store.ts";
import { accountUserKeys } from "../lib/query-keys.ts";
import { useWrite } from "../lib/write.ts";
import { FormAlert } from "../ui/alert.tsx";
import { SelectField } from "../ui/field.tsx";
import { SubmitButton } from "../ui/submit-button.tsx";
import { CELL, DetailRow, MUTED, PHONE_HIDDEN, PHONE_ONLY, ROW_HEADER } from "../ui/table.tsx";
import { useForm } from "../ui/use-form.ts";
import { errorText } from "../lib/api.ts";
import {
  type AccountUser,
  changeAccountUserRole,
  dayOf,
  removeAccountUser,
  type Role,
  type RoleChoice,
} from "./calls.ts";

// On a phone five columns do not fit: the table scrolled sideways, with no hint, and the buttons
// were off screen. There the email, role and day go under the name, and the buttons stack
// (decision 040, phone width).
export const USER_COLUMNS = [
  { label: "Name" },
  { label: "Email", hiddenOnPhone: true },
  { label: "Role", hiddenOnPhone: true },
  { label: "Joined", hiddenOnPhone: true },
  { label: "Actions", hidden: true },
];

export type Opened = "role" | "remove" | null;

function RoleForm({ accountRef, user, roles, onDone }: {
  accountRef: string;
  user: AccountUser;
  roles: RoleChoice[];
  onDone: () => void;
}) {
  const queries = useQueryClient();
  const form = useForm({
    call: changeAccountUserRole,
    idempotent: true,
    values: { role: user.role as Role },
    onSuccess(changed) {
      queries.setQueryData<AccountUser[]>(
        accountUserKeys.of(accountRef),
        (rows) => rows?.map((r) => (r.id === changed.id ? changed : r)),
      );
      notify({ title: "Role changed", description: `${changed.name} is now ${changed.role}.`, color: "success" });
      onDone();
    },
    invalidates: [accountUserKeys.of(accountRef)],
  });
  const id = `role-${user.id}`;
  const chosen = roles.find((r) => r.role === form.values.role);

  function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (form.values.role === user.role) return onDone();
    void form.submit({ params: { id: user.id }, body: { role: form.values.role } });
  }

  return (
    <form onSubmit={save} noValidate aria-label={`Change the role of ${user.name}`} className="flex flex-col gap-3">
      <FormAlert error={form.error} fields={form.fields} shown={["role"]} />
      <SelectField
        id={id}
        label="Role"
        value={form.values.role}
        onChange={(event) =>
          form.set("role", event.currentTarget.value)}
        error={form.fields.role}
        hint={chosen?.description}
        fieldClassName="max-w-md"
      >
        {roles.map((r) => <option key={r.role} value={r.role}>{r.role}</option>)}
      </SelectField>
      <div className="flex gap-3">
        <SubmitButton pending={form.submitting} pendingLabel="Saving…" className="btn-primary">Save role</SubmitButton>
        <button type="button" className="btn-ghost" onClick={onDone}>Cancel</button>
      </div>
    </form>
  );
}

function RemoveQuestion({ accountRef, user, onDone }: { accountRef: string; user: AccountUser; onDone: () => void }) {
  const queries = useQueryClient();
  const removal = useWrite({
    call: removeAccountUser,
    invalidates: [accountUserKeys.of(accountRef)],
    onSuccess() {
      queries.setQueryData<AccountUser[]>(
        accountUserKeys.of(accountRef),
        (rows) => rows?.filter((r) => r.id !== user.id),
      );
      notify({
        title: "User removed",
        description: `${user.name} no longer has access to this account.`,
        color: "success",
      });
      onDone();
    },
  });

  function remove(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!removal.isPending) removal.mutate({ params: { id: user.id } });
  }

  return (
    <form onSubmit={remove} aria-label={`Remove ${user.name}`} className="flex flex-col gap-3">
      <FormAlert error={removal.isError ? errorText(removal.error) : null} />
      <p>
        Remove {user.name}{" "}
        ({user.email}) from this account? They lose access at once, and we email them. Their own login and any other
        accounts they belong to stay.
      </p>
      <div className="flex gap-3">
        <SubmitButton pending={removal.isPending} pendingLabel="Removing…" className="btn-primary">
          Remove {user.name}
        </SubmitButton>
        <button type="button" className="btn-ghost" onClick={onDone}>Keep</button>
      </div>
    </form>
  );
}

export function UserRows({ accountRef, user, manageable, roles, opened, onOpen }: {
  accountRef: string;
  user: AccountUser;
  /** Whether the person looking may change this user's role or remove them. */
  manageable: boolean;
  /** The roles the person looking may give. */
  roles: RoleChoice[];
  opened: Opened;
  onOpen: (opened: Opened) => void;
}) {
  const detail = `user-${user.id}-detail`;
  const toggle = (what: Exclude<Opened, null>) => onOpen(opened === what ? null : what);
  const roleButton = useRef<HTMLButtonElement>(null);
  const removeButton = useRef<HTMLButtonElement>(null);
  /** The form below closes (Cancel, Keep, Escape, or done): the keyboard goes back to the button that opened it. */
  const close = () => {
    (opened === "role" ? roleButton : removeButton).current?.focus();
    onOpen(null);
  };
  return (
    <>
      <tr>
        <th scope="row" className={ROW_HEADER}>
          {user.name}
          {user.you ? <span className={`ml-2 text-xs ${MUTED}`}>(you)</span> : null}
          <span className={`${PHONE_ONLY} ${MUTED} font-normal break-all`}>{user.email}</span>
          <span className={`${PHONE_ONLY} ${MUTED} font-normal`} data-phone-role>
            {user.role} · joined {dayOf(user.joined_at)}
          </span>
        </th>
        <td className={`${CELL} ${PHONE_HIDDEN} break-all`}>{user.email}</td>
        <td className={`${CELL} ${PHONE_HIDDEN}`}>{user.role}</td>
        <td className={`${CELL} ${PHONE_HIDDEN} whitespace-nowrap`}>{dayOf(user.joined_at)}</td>
        <td className={`${CELL} text-right whitespace-nowrap`}>
          {manageable
            ? (
              <span className="inline-flex flex-col gap-2 sm:flex-row">
                <button
                  type="button"
                  className="btn-outline"
                  aria-expanded={opened === "role"}
                  aria-controls={detail}
                  aria-label={`Change the role of ${user.name}`}
                  ref={roleButton}
                  onClick={() => toggle("role")}
                >
                  Change the role
                </button>
                <button
                  type="button"
                  className="btn-outline"
                  aria-expanded={opened === "remove"}
                  aria-controls={detail}
                  aria-label={`Remove ${user.name}`}
                  ref={removeButton}
                  onClick={() => toggle("remove")}
                >
                  Remove
                </button>
              </span>
            )
            : null}
        </td>
      </tr>
      {manageable && opened
        ? (
          <DetailRow id={detail} columns={USER_COLUMNS.length}>
            <div
              onKeyDown={(event) => {
                if (event.key !== "Escape" || event.defaultPrevented) return;
                event.preventDefault();
                close();
              }}
            >
              {opened === "role"
                ? <RoleForm accountRef={accountRef} user={user} roles={roles} onDone={close} />
                : <RemoveQuestion accountRef={accountRef} user={user} onDone={close} />}
            </div>
          </DetailRow>
        )
        : null}
    </>
  );
}
