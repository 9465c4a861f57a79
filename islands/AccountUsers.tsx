import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import {
  type AccountUser,
  accountUsersQuery,
  type Invitation,
  invitationsQuery,
  type RoleChoice,
} from "./accounts/calls.ts";
import { INVITATION_COLUMNS, InvitationRow } from "./accounts/invitation-rows.tsx";
import { InviteForm } from "./accounts/invite-form.tsx";
import { type Opened, USER_COLUMNS, UserRows } from "./accounts/user-rows.tsx";
import { withQueries } from "./lib/query-client.tsx";
import { EmptyRow, Table } from "./ui/table.tsx";

export interface AccountUsersProps {
  /** The current account: the key of its users' and invitations' queries. */
  accountRef: string;
  /** As the server rendered them: the queries start from these. */
  users: AccountUser[];
  invitations: Invitation[];
  /** The person looking may invite, change roles and remove (an owner or admin of a business account). */
  canManage: boolean;
  /** The person looking is an owner: they may also make, demote or remove owners. */
  isOwner: boolean;
  /** Every role with what it may do, in lib/permissions.ts's words. */
  roles: RoleChoice[];
}

/**
 * The users of the current account (decision 028): who they are and their roles, for every member.
 * An owner or admin also invites people (POST account/users), changes roles (PUT account/users/{id}),
 * removes users (DELETE account/users/{id}) and withdraws invitations that wait. What the person
 * may not do is not offered; the server checks it again.
 */
function AccountUsers(
  { accountRef, users: initialUsers, invitations: initialInvitations, canManage, isOwner, roles }: AccountUsersProps,
) {
  const users = useQuery({ ...accountUsersQuery(accountRef), initialData: initialUsers }).data;
  const invitations = useQuery({
    ...invitationsQuery(accountRef),
    initialData: initialInvitations,
    enabled: canManage,
  }).data;
  const [opened, setOpened] = useState<{ userId: number; what: Opened } | null>(null);
  // An admin gives every role but owner; an owner gives them all.
  const givable = roles.filter((r) => isOwner || r.role !== "owner");
  const manageable = (user: AccountUser) => canManage && !user.you && (isOwner || user.role !== "owner");

  return (
    <div className="flex flex-col gap-8">
      <section aria-labelledby="account-users-heading" className="flex flex-col gap-3">
        <h2 id="account-users-heading" className="text-lg font-semibold">Users</h2>
        <Table caption={null} labelledBy="account-users-heading" columns={USER_COLUMNS}>
          {users.map((user) => (
            <UserRows
              key={user.id}
              accountRef={accountRef}
              user={user}
              manageable={manageable(user)}
              roles={givable}
              opened={opened?.userId === user.id ? opened.what : null}
              onOpen={(what) => setOpened(what ? { userId: user.id, what } : null)}
            />
          ))}
        </Table>
      </section>

      {canManage
        ? (
          <>
            <section aria-labelledby="invite-heading" className="card flex flex-col gap-3">
              <h2 id="invite-heading" className="text-lg font-semibold">Invite someone</h2>
              <InviteForm accountRef={accountRef} roles={givable} />
            </section>
            <section aria-labelledby="invitations-heading" className="flex flex-col gap-3">
              <h2 id="invitations-heading" className="text-lg font-semibold">Invitations waiting</h2>
              <Table caption={null} labelledBy="invitations-heading" columns={INVITATION_COLUMNS}>
                {invitations.length === 0
                  ? <EmptyRow columns={INVITATION_COLUMNS.length}>No invitations are waiting.</EmptyRow>
                  : null}
                {invitations.map((invitation) => (
                  <InvitationRow
                    key={invitation.id}
                    accountRef={accountRef}
                    invitation={invitation}
                    withdrawable={isOwner || invitation.role !== "owner"}
                  />
                ))}
              </Table>
            </section>
          </>
        )
        : null}

      <section aria-labelledby="roles-heading" className="flex flex-col gap-2">
        <h2 id="roles-heading" className="text-lg font-semibold">What each role may do</h2>
        <dl className="grid gap-x-4 gap-y-2 text-sm sm:grid-cols-[8rem_1fr]">
          {roles.map((r) => (
            <div key={r.role} className="contents">
              <dt className="font-semibold">{r.role}</dt>
              <dd className="text-neutral-700 dark:text-neutral-300">{r.description}</dd>
            </div>
          ))}
        </dl>
      </section>
    </div>
  );
}

export default withQueries(AccountUsers);
