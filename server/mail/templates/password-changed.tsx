import { Text } from "@react-email/components";
import { Layout, type RenderedEmail, styles } from "./layout.tsx";

/** No props today; the object keeps every template's call shape alike. */
export type PasswordChangedProps = Record<string, never>;

/** Sent after a password change or reset, so that a change the owner did not make is noticed. */
export function passwordChanged(_props: PasswordChangedProps = {}): RenderedEmail {
  const subject = "Your password was changed";
  const element = (
    <Layout preview="The password of your Portal account was changed." heading={subject}>
      <Text style={styles.text}>
        The password of your Portal account was just changed, and every session was signed out.
      </Text>
      <Text style={styles.text}>If you made this change, there is nothing else to do.</Text>
      <Text style={styles.small}>
        If you did not, reset your password at once from the sign-in page (Forgot password) and contact us.
      </Text>
    </Layout>
  );
  return { subject, element };
}
