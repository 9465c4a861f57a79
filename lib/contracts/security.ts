/** The signed-in user's own sign-in settings: the password, and the authenticator app (TOTP, decision 007). */
import { z } from "zod";
import { text } from "./common.ts";
import { defineCall } from "./define.ts";
import { newPassword } from "./auth.ts";
import { sessionUser } from "./session-user.ts";
import { PROOF_NEEDED } from "../it-is-you.ts";

const SIGNED_IN = ["loggedin", "secondfactor"] as const;

export { PROOF_NEEDED };

/**
 * Who is there, asked again before the second factor changes (decision 023): the password, or a
 * current code from the authenticator app in use. One of the two is required.
 */
export const itIsYou = z.object({
  password: text({
    label: "Your password",
    max: 1000,
    min: 0,
    secret: true,
    wrong: "Enter your password.",
    tooLong: "Enter your password.",
  }).optional(),
  code: text({
    label: "The code",
    max: 20,
    min: 0,
    wrong: "Enter the code from your app.",
    tooLong: "Enter the code from your app.",
  }).optional(),
}).superRefine((proof, ctx) => {
  if (!proof.password && !proof.code) ctx.addIssue({ code: "custom", path: ["password"], message: PROOF_NEEDED });
});

export const startAuthenticator = defineCall({
  method: "POST",
  path: "/account/totp/setup",
  summary: "A new authenticator key, its otpauth:// address and that address as a QR code (SVG), not in use " +
    "until a code from it is given. " +
    "Asks for the password, or the current code of the app in use (422 naming the field when wrong).",
  guards: SIGNED_IN,
  body: itIsYou,
  /** `qr_code_svg`: the otpauth:// address as a QR code, an SVG drawn by the server. */
  answer: z.object({ secret: z.string(), uri: z.string(), qr_code_svg: z.string() }),
});

export const enableAuthenticator = defineCall({
  method: "POST",
  path: "/account/totp/enable",
  summary: "Turns the authenticator on with a first code from the key that setup gave this browser in the last " +
    "10 minutes (the server remembers it: the client never names a key). A wrong code, or no setup lately, is a " +
    "422 naming `code`.",
  guards: SIGNED_IN,
  body: z.object({
    code: text({
      label: "The code from your app",
      max: 20,
      min: 0,
      missing: "Enter the code from your app.",
      wrong: "Enter the code from your app.",
    }),
  }),
  answer: sessionUser,
});

export const disableAuthenticator = defineCall({
  method: "DELETE",
  path: "/account/totp",
  summary: "Turns the authenticator off: codes come by email again. Asks for the password or a current code " +
    "from the app (422 naming the field when wrong; 429 after 5 wrong ones in 15 minutes).",
  guards: SIGNED_IN,
  body: itIsYou,
  answer: sessionUser,
});

/** The current password typed to change it: a wrong one is a 422 naming this field. */
const currentPassword = text({
  label: "Your current password",
  max: 1000,
  secret: true,
  missing: "Enter your current password.",
  wrong: "Enter your current password.",
  tooLong: "Enter your current password.",
});

export const changePassword = defineCall({
  method: "POST",
  path: "/account/password",
  summary: "Changes the password with the current one (422 naming `current_password` when wrong, with the tries " +
    "left; 429 after 5 wrong ones in 15 minutes). Every other session of the user ends; this one stays.",
  guards: SIGNED_IN,
  body: z.object({ current_password: currentPassword, password: newPassword }),
  answer: z.object({ ok: z.literal(true), other_sessions_ended: z.number().int() }),
});
