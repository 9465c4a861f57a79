import { Text } from "@react-email/text";
import { ActionLink, Layout, type RenderedEmail, styles } from "./layout.tsx";

export interface FundsReceivedProps {
  name: string;
  /** The amount with its currency, formatted: "1,000.00 GBP". */
  amount: string;
  accountRef: string;
  /** The balances page. */
  link: string;
}

/** Sent when money received for an account has been credited to its balance. */
export function fundsReceived({ name, amount, accountRef, link }: FundsReceivedProps): RenderedEmail {
  const subject = `We received ${amount}`;
  const element = (
    <Layout preview={`${amount} is now on your Portal account ${accountRef}.`} heading={subject}>
      <Text style={styles.text}>Hello {name},</Text>
      <Text style={styles.text}>
        We received {amount} for your account {accountRef}{" "}
        and added it to your balance. You can convert it or pay it out from your Portal account.
      </Text>
      <ActionLink href={link} label="See your balances" />
    </Layout>
  );
  return { subject, element, logHint: amount };
}
