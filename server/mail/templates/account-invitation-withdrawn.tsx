import { Text } from "@react-email/text";
import { Layout, type RenderedEmail, styles } from "./layout.tsx";

export interface AccountInvitationWithdrawnProps {
  accountName: string;
  /** Who withdrew it: an account user's name. */
  withdrawnBy: string;
}

/** Sent when an invitation is withdrawn before it was accepted: its link no longer works. */
export function accountInvitationWithdrawn(
  { accountName, withdrawnBy }: AccountInvitationWithdrawnProps,
): RenderedEmail {
  const subject = `Your invitation to ${accountName} was withdrawn`;
  const element = (
    <Layout preview={subject} heading={subject} reason={`you were invited to ${accountName} on Portal`}>
      <Text style={styles.text}>Hello,</Text>
      <Text style={styles.text}>
        {withdrawnBy} withdrew the invitation to the Portal account of {accountName}{" "}
        that we emailed you. Its link no longer works.
      </Text>
      <Text style={styles.small}>If you think this is a mistake, ask {withdrawnBy} for a new invitation.</Text>
    </Layout>
  );
  return { subject, element };
}
