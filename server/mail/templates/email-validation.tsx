import { Text } from "@react-email/components";
import { ActionLink, Layout, type RenderedEmail, styles } from "./layout.tsx";

export interface EmailValidationProps {
  name?: string | null;
  /** The full link, `${publicUrl}/verify?token=...`, built by the caller. */
  link: string;
  /** The same token, for typing on /verify by hand. */
  token: string;
}

/** Sent at registration and on validation/resend. */
export function emailValidation({ name, link, token }: EmailValidationProps): RenderedEmail {
  const subject = "Confirm your email address";
  const element = (
    <Layout preview="Open the link to confirm your email address for Portal." heading={subject}>
      <Text style={styles.text}>{name ? `Hello ${name},` : "Hello,"}</Text>
      <Text style={styles.text}>Open this link to confirm the email address of your Portal account:</Text>
      <ActionLink href={link} label="Confirm email address" />
      <Text style={styles.text}>Or type this code on the Verify email page:</Text>
      <Text style={styles.code}>{token}</Text>
      <Text style={styles.small}>If you did not open a Portal account, you can ignore this email.</Text>
    </Layout>
  );
  return { subject, element, logHint: link };
}
