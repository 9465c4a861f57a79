import { PageTitle } from "../layouts/parts.tsx";

/**
 * Where someone removed from every account they belonged to lands (server/accounts/removed.ts):
 * what happened and what to do, instead of "We are reviewing your application", which nobody is.
 */
export function NoAccount({ accountName }: { accountName: string }) {
  return (
    <section className="mx-auto max-w-xl">
      <PageTitle lead={`You were removed from ${accountName}.`}>You are no longer a member of any account</PageTitle>
      <div className="card flex flex-col gap-3">
        <p>
          An owner or an admin of {accountName}{" "}
          removed you from its users, and you belong to no other account. Nothing is being reviewed and nothing waits
          for you here.
        </p>
        <p>Ask the account's owner to invite you again: the invitation comes by email, with a link to accept it.</p>
      </div>
    </section>
  );
}
