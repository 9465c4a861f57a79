import { Text } from "@react-email/text";
import { Layout, type RenderedEmail, styles } from "./layout.tsx";

export interface ApplicationRejectedProps {
  name: string;
  /** Why, in the words of lib/compliance.ts: never the reviewer's own note. */
  reason: string;
  /** Where the customer can ask about it. */
  supportEmail: string;
}

/** Sent when the compliance review rejects an application: no account will open. */
export function applicationRejected({ name, reason, supportEmail }: ApplicationRejectedProps): RenderedEmail {
  const subject = "We cannot open your account";
  const element = (
    <Layout preview="Our review of your application is complete." heading={subject}>
      <Text style={styles.text}>Hello {name},</Text>
      <Text style={styles.text}>
        Our compliance team has reviewed your application, and we cannot open a Portal account for you.
      </Text>
      <Text style={styles.text}>{reason}</Text>
      <Text style={styles.text}>
        If you think we have made a mistake, or your circumstances change, write to us at {supportEmail}.
      </Text>
    </Layout>
  );
  return { subject, element, logHint: "application rejected" };
}
