import { Link } from "@react-email/link";
import { Section } from "@react-email/section";
import { Text } from "@react-email/text";
import { ActionLink, Layout, type RenderedEmail, styles } from "./layout.tsx";

export interface PaymentNoticeItem {
  title: string;
  body: string;
  /** The full address of the payment's page. */
  href: string | null;
  /**
   * The account it is about, as the portal's header names it ("Acme Ltd B1234567"): one login may
   * be on several accounts (issue 8 item 5), and "a payment to Jean Dupont" does not say whose.
   */
  account: string | null;
}

export interface PaymentNoticeProps {
  name: string;
  /** The notices, oldest first: one, or several gathered in one email. */
  items: PaymentNoticeItem[];
  /** Notices beyond those listed (the portal shows them all). */
  more: number;
  /** The portal's address, for the link to the rest. */
  portalUrl: string;
  /** The words of a single notice's link: "Open the payment" unless given (a rate alert's differs). */
  actionLabel?: string;
  /** What several notices are about: "your payments" unless given ("your account" when a rate alert is among them). */
  about?: string;
}

/**
 * A payment's news, by email: approval needed, approved, rejected, sent, arrived, failed. The
 * notices a person has not been emailed yet go out together, so a burst of payments brings one
 * email, not hundreds (server/notifications/email-outbox.ts).
 */
export function paymentNotice(
  { name, items, more, portalUrl, actionLabel, about = "your payments" }: PaymentNoticeProps,
): RenderedEmail {
  const single = items.length === 1 && more === 0;
  const count = items.length + more;
  // Notices of one account name it once, at the top; a mix names each one's.
  const accounts = new Set(items.map((item) => item.account));
  const oneAccount = accounts.size === 1 ? items[0].account : null;
  const subject = single ? items[0].title : `${count} updates on ${about}`;
  const element = (
    <Layout preview={single ? items[0].body : `${count} updates on ${about}`} heading={subject}>
      <Text style={styles.text}>Hello {name},</Text>
      {oneAccount ? <Text style={styles.text}>Account: {oneAccount}</Text> : null}
      {single
        ? (
          <>
            <Text style={styles.text}>{items[0].body}</Text>
            {items[0].href ? <ActionLink href={items[0].href} label={actionLabel ?? "Open the payment"} /> : null}
          </>
        )
        : (
          <>
            {items.map((item, i) => (
              <Section key={i}>
                <Text style={{ ...styles.text, fontWeight: 600, margin: "0 0 4px" }}>{item.title}</Text>
                {item.account && !oneAccount
                  ? <Text style={{ ...styles.text, margin: "0 0 4px" }}>Account: {item.account}</Text>
                  : null}
                <Text style={styles.text}>
                  {item.body}
                  {item.href
                    ? (
                      <>
                        {" "}
                        <Link href={item.href} style={styles.link}>{item.href}</Link>
                      </>
                    )
                    : null}
                </Text>
              </Section>
            ))}
            {more > 0
              ? (
                <Text style={styles.text}>
                  And {more} more: see them all in the portal,{" "}
                  <Link href={portalUrl} style={styles.link}>{portalUrl}</Link>
                </Text>
              )
              : null}
          </>
        )}
    </Layout>
  );
  return { subject, element, logHint: single ? items[0].href ?? undefined : `${count} updates` };
}
