import { Text } from "@react-email/text";
import { Layout, type RenderedEmail, styles } from "./layout.tsx";

export interface ProfileChangedProps {
  name: string;
  /** The labels of the details that changed ("Address", "Date of birth"): never their values. */
  fields: string[];
  /** Where to write to us (SUPPORT_EMAIL). */
  supportEmail: string;
}

/**
 * Sent when support changes a customer's saved details (decision 078), as a bank tells its
 * customer: which details changed, not what they are now (an email is read on many screens and
 * kept in the console's emails; the customer sees the values in the portal).
 */
export function profileChanged({ name, fields, supportEmail }: ProfileChangedProps): RenderedEmail {
  const subject = "Your details were changed";
  const element = (
    <Layout preview="Our support team changed the details we hold about you." heading={subject}>
      <Text style={styles.text}>Hello {name},</Text>
      <Text style={styles.text}>
        Our support team changed these details we hold about you: {fields.join(", ")}.
      </Text>
      <Text style={styles.text}>If you asked us for this change, there is nothing else to do.</Text>
      <Text style={styles.small}>If you did not, write to us at once at {supportEmail}.</Text>
    </Layout>
  );
  return { subject, element, logHint: `details changed: ${fields.join(", ")}` };
}
