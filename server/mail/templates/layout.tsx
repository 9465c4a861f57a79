import { Body } from "@react-email/body";
import { Button } from "@react-email/button";
import { Container } from "@react-email/container";
import { Head } from "@react-email/head";
import { Heading } from "@react-email/heading";
import { Hr } from "@react-email/hr";
import { Html } from "@react-email/html";
import { Link } from "@react-email/link";
import { Preview } from "@react-email/preview";
import { Section } from "@react-email/section";
import { Text } from "@react-email/text";
import type { CSSProperties, ReactElement, ReactNode } from "react";
import type { EmailSecret } from "../redact.ts";

/**
 * The frame every Portal email shares: brand line, heading, content, footer. Styles are inline
 * because mail clients drop stylesheets. The layout holds no link, so the first link of a message's
 * text part is always the one the template put there (tests and people look for it).
 */
export function Layout(
  { preview, heading, reason = "of your Portal account", children }: {
    preview: string;
    heading: string;
    /**
     * Why this person receives the email, after "You receive this email because": their Portal
     * account, unless they have none yet (an invitation) or it is not what brought the email.
     */
    reason?: string;
    children: ReactNode;
  },
) {
  return (
    <Html lang="en">
      <Head />
      <Preview>{preview}</Preview>
      <Body style={body}>
        <Container style={container}>
          <Text style={brand}>Portal</Text>
          <Heading as="h1" style={h1}>{heading}</Heading>
          <Section>{children}</Section>
          <Hr style={hr} />
          <Text style={footer}>
            You receive this email because {reason}. Portal staff never ask for your password or a sign-in code.
          </Text>
        </Container>
      </Body>
    </Html>
  );
}

const font = "-apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif";
const body: CSSProperties = {
  backgroundColor: "#f1f5f9",
  fontFamily: font,
  color: "#0f172a",
  margin: 0,
  padding: "24px 0",
};
const container: CSSProperties = { backgroundColor: "#ffffff", borderRadius: 8, maxWidth: 560, padding: "32px 40px" };
const brand: CSSProperties = { color: "#ea580c", fontSize: 20, fontWeight: 700, margin: "0 0 16px" };
const h1: CSSProperties = { fontSize: 22, fontWeight: 600, margin: "0 0 16px" };
const hr: CSSProperties = { borderColor: "#e2e8f0", margin: "24px 0" };
const footer: CSSProperties = { color: "#64748b", fontSize: 12, lineHeight: "18px", margin: 0 };

/**
 * The close of an email about a change to how someone signs in (a password, an authenticator app):
 * nothing to do if it was them; if not, what to do at once. A change the owner did not make must be
 * noticed, and acted on before anything else.
 */
export function IfNotYou({ supportEmail }: { supportEmail: string }) {
  return (
    <>
      <Text style={styles.text}>If you made this change, there is nothing else to do.</Text>
      <Text style={styles.small}>
        If you did not, reset your password at once from the sign-in page (Forgot password) and write to us at{" "}
        {supportEmail}.
      </Text>
    </>
  );
}

/**
 * A button, then the same link written out. The button and its "does not work?" line are left out
 * of the text part, so there the link stands alone on its line, verbatim, ready to copy (and for
 * tests to find).
 */
export function ActionLink({ href, label }: { href: string; label: string }) {
  return (
    <Section>
      <Button href={href} style={styles.button} data-skip-in-text>{label}</Button>
      <Text style={styles.small} data-skip-in-text>If the button does not work, copy this link into your browser:</Text>
      <Text style={styles.text}>
        <Link href={href} style={styles.link}>{href}</Link>
      </Text>
    </Section>
  );
}

/** Shared pieces of the templates' content. */
export const styles = {
  text: { fontSize: 15, lineHeight: "24px", margin: "0 0 16px" },
  button: {
    backgroundColor: "#ea580c",
    borderRadius: 6,
    color: "#ffffff",
    display: "inline-block",
    fontSize: 15,
    fontWeight: 600,
    padding: "12px 20px",
    textDecoration: "none",
  },
  link: { color: "#ea580c", wordBreak: "break-all" },
  code: {
    backgroundColor: "#f1f5f9",
    borderRadius: 6,
    fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace",
    fontSize: 22,
    letterSpacing: 4,
    padding: "12px 16px",
    textAlign: "center",
    wordBreak: "break-all",
  },
  small: { color: "#64748b", fontSize: 13, lineHeight: "20px", margin: "0 0 16px" },
} satisfies Record<string, CSSProperties>;

/**
 * What a template gives the mailer: the subject, the React element it renders to HTML and text,
 * and optionally what a developer needs to follow the message without a mailbox (a link or a
 * code). The mailer prints that hint only in development.
 */
export interface RenderedEmail {
  subject: string;
  element: ReactElement;
  logHint?: string;
  /**
   * What signs the customer in (a link, a code): sent to the customer, replaced in the copy the
   * portal keeps (server/mail/redact.ts, decision 057). Every security template names its secrets.
   */
  secrets?: EmailSecret[];
}
