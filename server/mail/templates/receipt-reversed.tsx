import { Text } from "@react-email/text";
import { Layout, type RenderedEmail, styles } from "./layout.tsx";

export interface ReceiptReversedProps {
  /** The amount with its currency: "250.00 GBP". */
  amount: string;
  /** The day the money arrived, YYYY-MM-DD. */
  receivedAt: string;
  accountRef: string;
  /** Where the customer can ask about it. */
  supportEmail: string;
}

/** Sent when a credit from money received is taken back (a receipt reversed in the console). */
export function receiptReversed({ amount, receivedAt, accountRef, supportEmail }: ReceiptReversedProps): RenderedEmail {
  const subject = `We reversed a credit of ${amount}`;
  const element = (
    <Layout
      preview={`${amount} received on ${receivedAt} is no longer on your account ${accountRef}.`}
      heading={subject}
    >
      <Text style={styles.text}>
        The {amount} we credited to your account {accountRef} for money received on {receivedAt}{" "}
        has been reversed, and your balance no longer includes it.
      </Text>
      <Text style={styles.text}>If you have a question about it, write to us at {supportEmail}.</Text>
    </Layout>
  );
  return { subject, element, logHint: amount };
}
