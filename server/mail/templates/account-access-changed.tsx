import { Text } from "@react-email/text";
import { type AccountRole, ROLE_DESCRIPTIONS } from "../../../lib/permissions.ts";
import { Layout, type RenderedEmail, styles } from "./layout.tsx";

export interface AccountAccessChangedProps {
  name: string;
  accountName: string;
  /** Who made the change: an account user's name. */
  changedBy: string;
  /** The new role, or null when the person was removed from the account. */
  role: AccountRole | null;
  /** Where to write to us (SUPPORT_EMAIL). */
  supportEmail: string;
}

/** Sent to an account user whose role changed, or who was removed from the account. */
export function accountAccessChanged(
  { name, accountName, changedBy, role, supportEmail }: AccountAccessChangedProps,
): RenderedEmail {
  const subject = role ? `Your role on ${accountName} is now ${role}` : `You no longer have access to ${accountName}`;
  const element = (
    <Layout preview={subject} heading={subject}>
      <Text style={styles.text}>Hello {name},</Text>
      {role
        ? (
          <Text style={styles.text}>
            {changedBy} changed your role on the Portal account of {accountName} to <strong>{role}</strong>:{" "}
            {ROLE_DESCRIPTIONS[role]}
          </Text>
        )
        : (
          <Text style={styles.text}>
            {changedBy} removed you from the Portal account of{" "}
            {accountName}. Your own login and any other accounts you belong to are not affected.
          </Text>
        )}
      <Text style={styles.small}>
        If you did not expect this change, contact the account's owner, or write to us at {supportEmail}.
      </Text>
    </Layout>
  );
  return { subject, element, logHint: role ?? "removed" };
}
