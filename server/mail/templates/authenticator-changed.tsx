import { Text } from "@react-email/text";
import { IfNotYou, Layout, type RenderedEmail, styles } from "./layout.tsx";

export interface AuthenticatorChangedProps {
  /** Turned on (set up with a first code) or turned off. */
  on: boolean;
  /** Where to write to us (SUPPORT_EMAIL). */
  supportEmail: string;
}

/**
 * Sent when the authenticator app is turned on or off, as after a password change: the second
 * factor of the account changed, and a change the owner did not make (someone at a session left
 * open, with the password) must be noticed.
 */
export function authenticatorChanged({ on, supportEmail }: AuthenticatorChangedProps): RenderedEmail {
  const subject = on
    ? "An authenticator app was set up for your Portal account"
    : "The authenticator app of your Portal account was turned off";
  const element = (
    <Layout preview={subject} heading={subject}>
      <Text style={styles.text}>
        {on
          ? "From now on, signing in to your Portal account asks for a code from the authenticator app that was just set up."
          : "From now on, signing in to your Portal account asks for a 6-digit code we email to this address."}
      </Text>
      <IfNotYou supportEmail={supportEmail} />
    </Layout>
  );
  return { subject, element };
}
