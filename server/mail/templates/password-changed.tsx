import { Text } from "@react-email/text";
import { IfNotYou, Layout, type RenderedEmail, styles } from "./layout.tsx";

export interface PasswordChangedProps {
  /** A reset by the emailed link ends every session; a change from the account keeps the one it was made in. */
  how?: "reset" | "change";
  /** Where to write to us (SUPPORT_EMAIL). */
  supportEmail: string;
}

/** Sent after a password change or reset, so that a change the owner did not make is noticed. */
export function passwordChanged({ how = "reset", supportEmail }: PasswordChangedProps): RenderedEmail {
  const subject = "Your password was changed";
  const element = (
    <Layout preview="The password of your Portal account was changed." heading={subject}>
      <Text style={styles.text}>
        The password of your Portal account was just changed, and{" "}
        {how === "change" ? "every other session was signed out" : "every session was signed out"}.
      </Text>
      <IfNotYou supportEmail={supportEmail} />
    </Layout>
  );
  return { subject, element };
}
