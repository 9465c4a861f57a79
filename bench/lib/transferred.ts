import { get } from "node:http";

/** What a browser receives for one URL: the bytes on the wire (compressed as sent) and how they were encoded. */
export interface Transferred {
  status: number;
  /** The body as sent, before any decoding. */
  body: Uint8Array;
  encoding: string | null;
  headers: Record<string, string | string[] | undefined>;
}

/** The Accept-Encoding Chromium sends on HTTP/1.1. */
export const BROWSER_ACCEPT_ENCODING = "gzip, deflate, br, zstd";

/**
 * GETs a URL and answers the body exactly as it came over the connection. fetch() cannot: it
 * decodes brotli and gzip before the caller sees a byte, so what it measures is never what was
 * transferred. node:http leaves the body alone.
 */
export function fetchTransferred(url: string, headers: Record<string, string> = {}): Promise<Transferred> {
  return new Promise((resolve, reject) => {
    const request = get(url, { headers: { "accept-encoding": BROWSER_ACCEPT_ENCODING, ...headers } }, (res) => {
      const pieces: Uint8Array[] = [];
      res.on("data", (piece: Uint8Array) => pieces.push(piece));
      res.on("error", reject);
      res.on("end", () => {
        const body = new Uint8Array(pieces.reduce((n, p) => n + p.byteLength, 0));
        let at = 0;
        for (const piece of pieces) {
          body.set(piece, at);
          at += piece.byteLength;
        }
        const encoding = res.headers["content-encoding"];
        resolve({
          status: res.statusCode ?? 0,
          body,
          encoding: typeof encoding === "string" ? encoding : null,
          headers: res.headers,
        });
      });
    });
    request.on("error", reject);
  });
}
