import { decodeBase64, encodeBase64 } from "@oslojs/encoding";
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
  return placeKey(file, encodeBase64(crypto.getRandomValues(new Uint8Array(32))));
}

/**
 * Puts `key` in `file` unless a key is there already, and answers the key in place. Two processes
 * starting together on a fresh machine may both find no file: they must end with one key
 * (decision 043). The key is written whole to a file of this process's own, then linked into
 * place, which fails if another process got there first; whichever key is in place is used.
 */
export function placeKey(file: string, key: string): string {
  const draft = `${file}.${Deno.pid}.${crypto.randomUUID()}`;
  writeFileSync(draft, key, { mode: 0o600 });
  try {
    linkSync(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    rmSync(draft, { force: true });
  }
  return readFileSync(file, "utf8").trim();
}
