import { Text } from "@react-email/text";
import { ActionLink, Layout, type RenderedEmail, styles } from "./layout.tsx";

export interface AccountOpenedProps {
  name: string;
  /** What the customer quotes as the payment reference when funding the account. */
  accountRef: string;
  /** The account's page, where the bank details to send money to are. */
  link: string;
}

/** Sent when an account opens, at once or after the compliance review. */
export function accountOpened({ name, accountRef, link }: AccountOpenedProps): RenderedEmail {
  const subject = "Your account is open";
  const element = (
    <Layout preview={`Your Portal account ${accountRef} is open.`} heading={subject}>
      <Text style={styles.text}>Hello {name},</Text>
      <Text style={styles.text}>Your Portal account is open. Its reference is:</Text>
      <Text style={styles.code}>{accountRef}</Text>
      <Text style={styles.text}>
        To add money, send a bank transfer to our account (its details are on your account's page) and quote{" "}
        <strong>{accountRef}</strong>{" "}
        as the payment reference. We credit your balance when the funds arrive; a transfer without the reference takes
        longer to match.
      </Text>
      <ActionLink href={link} label="Open your account" />
    </Layout>
  );
  return { subject, element, logHint: accountRef };
}
