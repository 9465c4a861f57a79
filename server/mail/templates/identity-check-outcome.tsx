import { Text } from "@react-email/text";
import { ActionLink, Layout, type RenderedEmail, styles } from "./layout.tsx";

export interface IdentityCheckOutcomeProps {
  name: string;
  /** The provider's verdict: try again, or refused for good. */
  status: "retry" | "rejected";
  /** The provider's words for the customer (Sumsub's moderationComment), when it gave some. */
  comment: string | null;
  /** The identity page, where a check is tried again. */
  link: string;
  /** Where the customer can ask about it. */
  supportEmail: string;
}

/**
 * Sent when the identity provider's verdict arrives by webhook and asks for another try or refuses
 * the check: the customer left the identity page long before, and would otherwise not know.
 */
export function identityCheckOutcome(
  { name, status, comment, link, supportEmail }: IdentityCheckOutcomeProps,
): RenderedEmail {
  const retry = status === "retry";
  const subject = retry ? "Please try your identity check again" : "We could not verify your identity";
  const element = (
    <Layout
      preview={retry
        ? "Your identity check needs another try before we can open your account."
        : "Your identity check was refused."}
      heading={subject}
    >
      <Text style={styles.text}>Hello {name},</Text>
      <Text style={styles.text}>
        {retry
          ? "Our identity provider could not complete your identity check, and asks you to try again:"
          : "Our identity provider has refused your identity check, and we cannot open your Portal account."}
      </Text>
      {comment ? <Text style={styles.text}>{comment}</Text> : null}
      {retry ? <ActionLink href={link} label="Try again" /> : null}
      <Text style={styles.small}>
        {retry ? "If you have a question about it, write to us at " : "If you think this is a mistake, write to us at "}
        {supportEmail}.
      </Text>
    </Layout>
  );
  return { subject, element, logHint: retry ? link : "identity check refused" };
}
