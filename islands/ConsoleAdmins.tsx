import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ADMINISTRATOR_COLUMNS, AdministratorRow } from "./admins/administrator-row.tsx";
import { type Administrator, administratorsQuery } from "./admins/calls.ts";
import { InviteAdministratorForm } from "./admins/invite-form.tsx";
import { withQueries } from "./lib/query-client.tsx";
import { EmptyRow, Table } from "./ui/table.tsx";

export interface ConsoleAdminsProps {
  /** As the server rendered them: the query starts from these. */
  administrators: Administrator[];
  /** The administrator looking. */
  youId: number;
}

/**
 * The console's administrators (decision 044): who they are, their status, second factor and last
 * sign-in (GET console/admins); an invitation by email (POST console/admins), which waits for a
 * second administrator's Approve or Refuse (only the portal's first administrator invites alone); and disabling one after a
 * confirmation (DELETE console/admins/{id}). The server refuses the last active administrator,
 * oneself, and an inviter deciding their own invitation, and says why.
 */
function ConsoleAdmins({ administrators, youId }: ConsoleAdminsProps) {
  const list = useQuery({ ...administratorsQuery(), initialData: administrators }).data;
  const [confirming, setConfirming] = useState<number | null>(null);
  const yourEmail = list.find((admin) => admin.id === youId)?.email;
  return (
    <div className="flex flex-col gap-8">
      <Table caption="Administrators" columns={ADMINISTRATOR_COLUMNS}>
        {list.length === 0 ? <EmptyRow columns={ADMINISTRATOR_COLUMNS.length}>No administrators.</EmptyRow> : null}
        {list.map((admin) => (
          <AdministratorRow
            key={admin.id}
            admin={admin}
            you={admin.id === youId}
            youAsked={!!yourEmail && admin.invited_by === yourEmail}
            confirming={confirming === admin.id}
            onConfirm={(open) => setConfirming(open ? admin.id : null)}
          />
        ))}
      </Table>
      <section aria-labelledby="admin-invite-heading" className="card flex flex-col gap-3">
        <h2 id="admin-invite-heading" className="text-lg font-semibold">Invite an administrator</h2>
        <InviteAdministratorForm othersActive={list.some((admin) => admin.id !== youId && admin.status === "active")} />
      </section>
    </div>
  );
}

export default withQueries(ConsoleAdmins);
