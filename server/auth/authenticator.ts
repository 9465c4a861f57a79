import QRCode from "qrcode";
import type { Database } from "../../db/client.ts";
import { InvalidInput } from "../errors.ts";
import { authenticatorChanged, type Mailer } from "../mail/index.ts";
import type { SecretBox } from "./encryption.ts";
import { newTotpKey, totpKeyText, totpUri, verifyTotp } from "./totp.ts";
import { advanceTotpStep, setAuthenticatorKey, type UserRow } from "./users.ts";

/** The authenticator app (TOTP, RFC 6238): enrolling, turning it off, and checking its codes. */

/**
 * A new key for the user's app; nothing is stored until a code from it proves the app has it. With
 * its otpauth:// address as a QR code to scan, drawn here as SVG (issue 15): the browser gets the
 * picture, not a QR library (the JS budget, decision 034). Black on white whatever the colour mode:
 * cameras read dark modules on a light ground.
 */
export async function newAuthenticatorKey(
  username: string,
): Promise<{ key: Uint8Array; secret: string; uri: string; qr_code_svg: string }> {
  const key = newTotpKey();
  const uri = totpUri("Portal", username, key);
  const qr_code_svg = await QRCode.toString(uri, {
    type: "svg",
    margin: 2,
    errorCorrectionLevel: "M",
    color: { dark: "#000000", light: "#ffffff" },
  });
  return { key, secret: totpKeyText(key), uri, qr_code_svg };
}

/** Enabling without a key handed out at setup to this browser in the last 10 minutes (decision 072). */
export const SETUP_AGAIN = "This setup has expired: cancel and set up the app again.";

/**
 * Turns the authenticator on with the key handed out at setup (`key`, remembered by the server:
 * null when this browser was given none lately) and a first code from it. The client never names
 * the key: a key of its own choosing would let someone at an unattended session skip the password
 * (decisions 023, 072). A wrong code is a 422 naming the code, not a 401: a mistyped code while
 * enrolling is not a failed sign-in and must not sign the user out.
 */
export async function enableAuthenticator(
  deps: { db: Database; secretBox: SecretBox; now: () => number },
  userId: number,
  key: Uint8Array | null,
  input: { code: string },
): Promise<void> {
  if (!key) throw new InvalidInput(SETUP_AGAIN, "code");
  const step = verifyTotp(key, input.code, deps.now(), null);
  if (step === null) throw new InvalidInput("That code does not match: check the time on your device.", "code");
  const sealed = await deps.secretBox.seal(new Uint8Array(key));
  await setAuthenticatorKey(deps.db, userId, { sealed, step });
}

export async function disableAuthenticator(db: Database, userId: number): Promise<void> {
  await setAuthenticatorKey(db, userId, null);
}

/**
 * Tells the owner that the authenticator app was turned on or off, as a password change does: their
 * second factor changed, and a change they did not make must be noticed.
 */
export async function tellOwnerOfAuthenticator(
  deps: { mailer: Mailer; supportEmail: string },
  user: { id: number; username: string },
  on: boolean,
): Promise<void> {
  await deps.mailer.send({
    to: user.username,
    userId: user.id,
    template: "authenticator-changed",
    rendered: authenticatorChanged({ on, supportEmail: deps.supportEmail }),
  });
}

/**
 * Whether a code is the user's authenticator's for now (one step of drift either way). A step is
 * accepted once: the same code cannot pass twice, even sent twice at once.
 */
export async function authenticatorAccepts(
  deps: { db: Database; secretBox: SecretBox; now: () => number },
  user: Pick<UserRow, "id" | "totpSecret" | "totpLastStep">,
  code: string,
): Promise<boolean> {
  if (!user.totpSecret) return false;
  const key = await deps.secretBox.open(user.totpSecret);
  const step = verifyTotp(key, code, deps.now(), user.totpLastStep);
  return step !== null && await advanceTotpStep(deps.db, user.id, user.totpLastStep, step);
}
