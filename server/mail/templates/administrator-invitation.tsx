import { Text } from "@react-email/text";
import { ActionLink, Layout, type RenderedEmail, styles } from "./layout.tsx";
import { momentInUtc } from "../../../lib/moment.ts";

export interface AdministratorInvitationProps {
  /** Who invited them: the inviting administrator's name, else their email. */
  invitedBy: string;
  /** The full link, `${publicUrl}/forgot?token=...&username=...`, built by the caller. */
  link: string;
  /** When the link stops working. */
  expiresAt: Date;
}

/** Sent when an administrator invites another from /console/admins (decision 044). */
export function administratorInvitation({ invitedBy, link, expiresAt }: AdministratorInvitationProps): RenderedEmail {
  const subject = "You are invited to administer Portal";
  const element = (
    <Layout
      preview="Choose a password to start using the Portal console."
      heading={subject}
      reason={`${invitedBy} invited you to be an administrator of Portal`}
    >
      <Text style={styles.text}>Hello,</Text>
      <Text style={styles.text}>
        {invitedBy}{" "}
        invited you to be an administrator of Portal. Open this link to choose your password, then sign in: each sign-in
        also asks for a second factor (a code by email, or your authenticator app).
      </Text>
      <ActionLink href={link} label="Choose your password" />
      <Text style={styles.small}>
        The link works once, until {momentInUtc(expiresAt)}. If you did not expect this invitation, ignore this email.
      </Text>
    </Layout>
  );
  return { subject, element, logHint: link, secrets: [{ kind: "link", value: link }] };
}
