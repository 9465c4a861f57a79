import { decodeBase64, encodeBase64 } from "@oslojs/encoding";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Encrypts small secrets at rest (authenticator-app secrets) with AES-256-GCM. The key comes from
 * APP_SECRET, or from a file generated once beside the database when none is set.
 */
export class SecretBox {
  private constructor(private readonly key: CryptoKey) {}

  static async fromSecret(secret: string): Promise<SecretBox> {
    const material = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`portal-secret-box:${secret}`));
    const key = await crypto.subtle.importKey("raw", material, "AES-GCM", false, ["encrypt", "decrypt"]);
    return new SecretBox(key);
  }

  async seal(plain: Uint8Array<ArrayBuffer>): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, this.key, plain));
    const out = new Uint8Array(iv.length + sealed.length);
    out.set(iv);
    out.set(sealed, iv.length);
    return encodeBase64(out);
  }

  async open(sealed: string): Promise<Uint8Array> {
    const bytes = decodeBase64(sealed);
    return new Uint8Array(
      await crypto.subtle.decrypt({ name: "AES-GCM", iv: bytes.slice(0, 12) }, this.key, bytes.slice(12)),
    );
  }
}

/** APP_SECRET, or the generated key file (created with owner-only permissions on first use). */
export function appSecret(configured: string | undefined, file = "data/app-secret"): string {
  if (configured) return configured;
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dirname(file), { recursive: true });
  const secret = encodeBase64(crypto.getRandomValues(new Uint8Array(32)));
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}
