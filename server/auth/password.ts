import { argon2id, argon2Verify } from "hash-wasm";

/**
 * Passwords are hashed with Argon2id at OWASP's minimum (19 MiB, 2 passes, 1 lane). hash-wasm is
 * WebAssembly, so the same code runs on a server and at the edge. The rule a new password follows
 * is shared with the forms: lib/contracts/auth.ts.
 */
const PARAMS = { memorySize: 19 * 1024, iterations: 2, parallelism: 1, hashLength: 32 } as const;

export function hashPassword(password: string): Promise<string> {
  return argon2id({ password, salt: crypto.getRandomValues(new Uint8Array(16)), ...PARAMS, outputType: "encoded" });
}

/**
 * A hash of a random password with the same parameters, made once: an unknown account's attempt is
 * verified against it, so that it runs the very Argon2 verification a known account's does.
 */
let standIn: Promise<string> | null = null;
const standInHash = () => (standIn ??= hashPassword(crypto.randomUUID()));

/** Whether a password is the one of a hash; without a hash (no such account), always false, in the same time. */
export async function verifyPassword(hash: string | null | undefined, password: string): Promise<boolean> {
  let matches = false;
  try {
    matches = await argon2Verify({ password, hash: hash || await standInHash() });
  } catch {
    // An empty password or a damaged stored hash: not a match.
  }
  return matches && !!hash;
}
