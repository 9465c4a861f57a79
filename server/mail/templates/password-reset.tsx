import { Text } from "@react-email/text";
import { ActionLink, Layout, type RenderedEmail, styles } from "./layout.tsx";

export interface PasswordResetProps {
  /** The full link, `${publicUrl}/forgot?token=...&username=...`, built by the caller. */
  link: string;
  /** The token inside the link; not shown, the link carries it. */
  token?: string;
}

/** Sent from /forgot. */
export function passwordReset({ link }: PasswordResetProps): RenderedEmail {
  const subject = "Reset your password";
  const element = (
    <Layout preview="Open the link to choose a new Portal password. Valid for one hour." heading={subject}>
      <Text style={styles.text}>
        Someone asked to reset the password of your Portal account. Open this link to choose a new one:
      </Text>
      <ActionLink href={link} label="Choose a new password" />
      <Text style={styles.text}>The link is valid for one hour and works once.</Text>
      <Text style={styles.small}>If you did not ask for this, ignore this email: your password stays as it is.</Text>
    </Layout>
  );
  return { subject, element, logHint: link, secrets: [{ kind: "link", value: link }] };
}
