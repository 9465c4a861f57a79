import { Text } from "@react-email/text";
import { ActionLink, Layout, type RenderedEmail, styles } from "../mail/templates/layout.tsx";

/** Sent to each customer a committed migration created: the new portal has no password of theirs yet. */
export function migrationWelcome({ link, days }: { link: string; days: number }): RenderedEmail {
  const subject = "Your account has moved: choose your password";
  const element = (
    <Layout
      preview="Choose a password for the new Portal, then confirm your identity."
      heading={subject}
      reason="your account with us moved to the new Portal"
    >
      <Text style={styles.text}>
        Your account with us has moved to the new Portal. Your old password does not work here: open this link to choose
        one.
      </Text>
      <ActionLink href={link} label="Choose your password" />
      <Text style={styles.text}>
        The link works once and for {days}{" "}
        days. Once signed in, you will check your details and confirm your identity before you can move money: the law
        asks us to, for every customer of the new Portal.
      </Text>
      <Text style={styles.small}>
        If the link has expired, ask for a new one with "Forgotten password" on the sign-in page.
      </Text>
    </Layout>
  );
  return { subject, element, logHint: link, secrets: [{ kind: "link", value: link }] };
}
