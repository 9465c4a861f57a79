import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { users } from "../../db/schema.ts";
import { newTotpKey, totpKeyFromText, totpKeyText, totpUri, verifyTotp } from "../../server/auth/totp.ts";
import { findUser, summaryOf } from "../../server/auth/users.ts";
import type { AppEnv } from "../../server/env.ts";
import { guards } from "../../server/guards.ts";
import { ApiError, ok } from "../../server/http/api.ts";
import { valid } from "../../server/http/validate.ts";

const SIGNED_IN = guards("loggedin", "secondfactor");

/** The authenticator app (TOTP): enrol with a key and a first code, or turn it off. */
// One statement per route, never a chain: a chain's types pile up (decision 010).
export const security = new Hono<AppEnv>();

security.post("/account/totp/setup", SIGNED_IN, (c) => {
  // The key is not stored until a code from it proves the app has it (enable, below).
  const key = newTotpKey();
  return ok(c, { secret: totpKeyText(key), uri: totpUri("Portal", c.get("user")!.username, key) });
});

security.post(
  "/account/totp/enable",
  SIGNED_IN,
  valid(
    "json",
    z.object({
      secret: z.string().trim().regex(/^[A-Z2-7 ]{16,64}$/i, { error: "The key is not valid." }),
      code: z.string().trim(),
    }),
  ),
  async (c) => {
    const { secret, code } = c.req.valid("json");
    const key = totpKeyFromText(secret);
    const step = verifyTotp(key, code, c.get("services").now(), null);
    // 422, not 401: a mistyped code while enrolling is not a failed sign-in and must not sign the user out.
    if (step === null) {
      throw new ApiError(422, "That code does not match: check the time on your device.", {
        fields: { code: "That code does not match: check the time on your device." },
      });
    }
    const sealed = await c.get("services").secretBox.seal(new Uint8Array(key));
    await c.get("db").update(users).set({ totpSecret: sealed, totpLastStep: step }).where(
      eq(users.id, c.get("user")!.id),
    );
    const user = await findUser(c.get("db"), c.get("user")!.id);
    return ok(c, await summaryOf(c.get("db"), user!, true));
  },
);

security.delete("/account/totp", SIGNED_IN, async (c) => {
  await c.get("db").update(users).set({ totpSecret: null, totpLastStep: null }).where(eq(users.id, c.get("user")!.id));
  const user = await findUser(c.get("db"), c.get("user")!.id);
  return ok(c, await summaryOf(c.get("db"), user!, true));
});
