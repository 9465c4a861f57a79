import { Link } from "@react-email/link";
import { Text } from "@react-email/text";
import { ActionLink, Layout, type RenderedEmail, styles } from "./layout.tsx";

export interface RegistrationAttemptProps {
  /** The sign-in page, `${publicUrl}/`. */
  signInLink: string;
  /** The forgotten-password page, `${publicUrl}/forgot`. */
  forgotLink: string;
}

/**
 * Sent instead of a validation link when someone registers with an address that already has an
 * account (decision 023): the registration answers as for a new address, so only the mailbox's
 * owner learns that the account exists.
 */
export function registrationAttempt({ signInLink, forgotLink }: RegistrationAttemptProps): RenderedEmail {
  const subject = "Someone tried to open an account with your address";
  const element = (
    <Layout preview="You already have a Portal account with this address." heading={subject}>
      <Text style={styles.text}>
        Someone, perhaps you, tried to open an account with this address. You already have a Portal account with it, so
        nothing was opened and nobody was signed in.
      </Text>
      <Text style={styles.text}>If it was you, sign in to your account:</Text>
      <ActionLink href={signInLink} label="Sign in" />
      <Text style={styles.text}>
        Forgotten your password? Choose a new one here: <Link href={forgotLink} style={styles.link}>{forgotLink}</Link>
      </Text>
      <Text style={styles.small}>If it was not you, you can ignore this email: your account is as it was.</Text>
    </Layout>
  );
  return { subject, element, logHint: signInLink };
}
