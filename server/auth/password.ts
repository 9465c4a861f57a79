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

export async function verifyPassword(hash: string | null | undefined, password: string): Promise<boolean> {
  if (!hash) {
    // Spend the same time as a real check, so a missing account cannot be told apart by timing.
    await hashPassword(password);
    return false;
  }
  try {
    return await argon2Verify({ password, hash });
  } catch {
    return false;
  }
}
