import { Text } from "@react-email/text";
import { ActionLink, Layout, type RenderedEmail, styles } from "./layout.tsx";

export interface EmailValidationProps {
  name?: string | null;
  /** The full link, `${publicUrl}/verify?token=...`, built by the caller. */
  link: string;
  /** A 6-digit code with the same use and expiry, for typing on /verify (decision 039). */
  code: string;
}

/** Sent at registration and on validation/resend. */
export function emailValidation({ name, link, code }: EmailValidationProps): RenderedEmail {
  const subject = "Confirm your email address";
  const element = (
    <Layout preview="Open the link to confirm your email address for Portal." heading={subject}>
      <Text style={styles.text}>{name ? `Hello ${name},` : "Hello,"}</Text>
      <Text style={styles.text}>Open this link to confirm the email address of your Portal account:</Text>
      <ActionLink href={link} label="Confirm email address" />
      <Text style={styles.text}>Or type this code on the Verify email page. Both work once, for 24 hours:</Text>
      <Text style={styles.code}>{code}</Text>
      <Text style={styles.small}>If you did not open a Portal account, you can ignore this email.</Text>
    </Layout>
  );
  return {
    subject,
    element,
    logHint: link,
    secrets: [{ kind: "link", value: link }, { kind: "code", value: code }],
  };
}
