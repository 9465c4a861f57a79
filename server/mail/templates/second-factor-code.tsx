import { Text } from "@react-email/text";
import { Layout, type RenderedEmail, styles } from "./layout.tsx";

export interface SecondFactorCodeProps {
  /** The 6-digit code. */
  code: string;
}

/** The second step of every sign-in, for users without an authenticator app. */
export function secondFactorCode({ code }: SecondFactorCodeProps): RenderedEmail {
  const subject = "Your sign-in code";
  const element = (
    <Layout preview="Your Portal sign-in code, valid for 10 minutes." heading={subject}>
      <Text style={styles.text}>Enter this code to finish signing in to Portal:</Text>
      <Text style={styles.code}>{code}</Text>
      <Text style={styles.text}>The code is valid for 10 minutes and works once.</Text>
      <Text style={styles.small}>
        If this wasn't you, someone knows your password: change it now. On Portal's sign-in page, choose "Forgotten
        password?" and follow the link we email you; every session of your account is then signed out.
      </Text>
    </Layout>
  );
  return { subject, element, logHint: `code ${code}`, secrets: [{ kind: "code", value: code }] };
}
