import { Text } from "@react-email/text";
import { type AccountRole, ROLE_DESCRIPTIONS } from "../../../lib/permissions.ts";
import { ActionLink, Layout, type RenderedEmail, styles } from "./layout.tsx";
import { momentInUtc } from "../../../lib/moment.ts";

export interface AccountInvitationProps {
  /** Who invited them: the account user's name. */
  invitedBy: string;
  accountName: string;
  role: AccountRole;
  /** The full link, `${publicUrl}/invite?token=...`, built by the caller. */
  link: string;
  /** When the link stops working. */
  expiresAt: Date;
}

/** Sent when an account's owner or admin invites someone to the account. */
export function accountInvitation(
  { invitedBy, accountName, role, link, expiresAt }: AccountInvitationProps,
): RenderedEmail {
  const subject = `${invitedBy} invited you to ${accountName} on Portal`;
  const element = (
    <Layout
      preview={`Join ${accountName} on Portal as ${role}.`}
      heading={`Join ${accountName}`}
      reason={`${invitedBy} invited you to ${accountName} on Portal`}
    >
      <Text style={styles.text}>Hello,</Text>
      <Text style={styles.text}>
        {invitedBy} invited you to use the Portal account of {accountName} as <strong>{role}</strong>:{" "}
        {ROLE_DESCRIPTIONS[role]}
      </Text>
      <ActionLink href={link} label="Accept the invitation" />
      <Text style={styles.small}>
        The link works once, until{" "}
        {momentInUtc(expiresAt)}. If you have no Portal login yet, you will choose a password and confirm who you are
        before you can use the account. If you did not expect this invitation, you can ignore this email.
      </Text>
    </Layout>
  );
  return { subject, element, logHint: link, secrets: [{ kind: "link", value: link }] };
}
