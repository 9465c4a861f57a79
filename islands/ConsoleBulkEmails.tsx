import { bulkEmailKeys, createBulkEmail } from "./bulkemails/calls.ts";
import { ComposeForm } from "./bulkemails/compose-form.tsx";
import { withQueries } from "./lib/query-client.tsx";
import { useWrite } from "./lib/write.ts";

export interface ConsoleBulkEmailsProps {
  /** The merge fields and what each is, as the contract defines them. */
  mergeFields: Record<string, string>;
  /** The partners to choose from, by name (their customers are a segment). */
  partners: { id: number; name: string }[];
}

/**
 * /console/bulkemails: write a bulk email (subject, body with merge fields) and choose who it goes
 * to. Saving makes a draft, whose page previews it with a customer's data and sends it.
 */
function ConsoleBulkEmails({ mergeFields, partners }: ConsoleBulkEmailsProps) {
  const create = useWrite({
    call: createBulkEmail,
    idempotent: true,
    invalidates: [bulkEmailKeys.all],
    onSuccess: (email) => location.assign(`/console/bulkemails/${email.id}`),
  });
  return (
    <ComposeForm
      mergeFields={mergeFields}
      partners={partners}
      label="New bulk email"
      submitLabel="Save and preview"
      pending={create.isPending}
      error={create.error}
      onSubmit={(body) => create.mutate({ body })}
    />
  );
}

export default withQueries(ConsoleBulkEmails);
