import type { Context } from "hono";
import { PAYABLE_CURRENCIES } from "../../lib/bank-details/requirements.ts";
import { idText } from "../../lib/contracts/common.ts";
import { may } from "../../lib/permissions.ts";
import { currentAccount } from "../../server/accounts/current.ts";
import type { AppEnv } from "../../server/env.ts";
import { DomainError } from "../../server/errors.ts";
import { currency } from "../../server/money/currencies.ts";
import { listRecipients, recipientWithHistory } from "../../server/recipients/service.ts";
import { Recipients } from "../islands.ts";
import { PageTitle } from "../layouts/parts.tsx";

/** The recipient ?recipient=5 names, with its history, when it is one of the account's; else null. */
async function selectedRecipient(c: Context<AppEnv>, accountId: number) {
  const id = idText.safeParse(c.req.query("recipient"));
  if (!id.success) return null;
  try {
    return await recipientWithHistory(c.get("db"), accountId, id.data);
  } catch (error) {
    if (error instanceof DomainError && error.kind === "not_found") return null;
    throw error;
  }
}

/** /account/recipients: the people and businesses the account pays, and their bank details. */
export async function RecipientsPage(c: Context<AppEnv>) {
  const { accountId, customer, role } = await currentAccount(c);
  const [recipients, selected] = await Promise.all([
    listRecipients(c.get("db"), accountId, { page: 1, per_page: 20 }),
    selectedRecipient(c, accountId),
  ]);
  const canManage = may(role, "recipients.manage");
  return (
    <>
      <PageTitle
        lead={canManage
          ? "The people and businesses you pay, with their bank details. We check the details as you type them."
          : "The people and businesses this account pays. Your role lets you see them, not change them."}
      >
        Recipients
      </PageTitle>
      <Recipients
        accountRef={customer.account_ref!}
        recipients={recipients}
        selected={selected}
        currencies={PAYABLE_CURRENCIES.map((code) => ({ code, name: currency(code).name }))}
        canManage={canManage}
      />
    </>
  );
}
