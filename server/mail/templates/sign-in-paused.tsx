import { Text } from "@react-email/text";
import { ActionLink, Layout, type RenderedEmail, styles } from "./layout.tsx";

export interface SignInPausedProps {
  /** What was being guessed: the password, or the second-factor code (which means the password is known). */
  guessed: "password" | "code";
  /** A password-reset link, `${publicUrl}/forgot?token=...&username=...`, valid for one hour. */
  link: string;
  /** Where to write to us (SUPPORT_EMAIL). */
  supportEmail: string;
}

/**
 * Sent when many failed attempts from several places pause sign-in to an account (decision 023).
 * The link lets the owner through the pause; so does a device they have signed in on before.
 */
export function signInPaused({ guessed, link, supportEmail }: SignInPausedProps): RenderedEmail {
  const subject = guessed === "code"
    ? "Someone who knows your password is trying to sign in"
    : "Sign-in to your account is paused for an hour";
  const element = (
    <Layout
      preview="Many failed sign-in attempts: sign-in to your Portal account is paused for an hour."
      heading={subject}
    >
      <Text style={styles.text}>
        {guessed === "code"
          ? "Someone signed in with your password and then tried many wrong codes from several places. Choose a new password now."
          : "Someone tried many wrong passwords for your Portal account from several places."}{" "}
        For your safety, sign-in to your account is paused for an hour, except on the devices where you have signed in
        before.
      </Text>
      <Text style={styles.text}>This link lets you in now: it chooses a new password and ends the pause.</Text>
      <ActionLink href={link} label="Choose a new password" />
      <Text style={styles.small}>
        The link is valid for one hour and works once. Nobody has signed in to your account with these attempts. If you
        see this again, write to us at {supportEmail}.
      </Text>
    </Layout>
  );
  return { subject, element, logHint: link, secrets: [{ kind: "link", value: link }] };
}
