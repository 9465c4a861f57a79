import type { Context, MiddlewareHandler } from "hono";
import { COMPRESSIBLE_CONTENT_TYPE_REGEX } from "hono/utils/compress";
import { brotliCompressSync, constants, createBrotliCompress, createGzip, gzipSync } from "node:zlib";

/** The encodings we send. */
export type Encoding = "br" | "gzip";

/** Below this, compressing saves less than it costs (headers alone are several hundred bytes). */
export const COMPRESSION_THRESHOLD = 1024;

/**
 * Which encoding an answer compressed while the visitor waits gets, when the browser accepts both:
 * gzip. On pages of 5 to 20 KB, gzip's level 6 costs about a third of brotli's quality 4 in CPU
 * and its output is within 5 % (decision 034: 2,232 against 2,127 bytes for /calculator); brotli
 * at a cost near gzip's (quality 2-3) is larger than gzip. The built assets, compressed once at
 * build time, are sent as brotli (quality 11), where brotli's gain is real.
 */
export const PER_ANSWER_PREFERENCE: readonly Encoding[] = ["gzip", "br"];

/**
 * The encoding to send for an Accept-Encoding header, in our order of preference among those it
 * accepts; null for none. A q of 0 refuses an encoding, "*" stands for any encoding not named
 * (RFC 9110 §12.5.3).
 */
export function negotiateEncoding(
  acceptEncoding: string | undefined,
  preference: readonly Encoding[] = PER_ANSWER_PREFERENCE,
): Encoding | null {
  if (!acceptEncoding) return null;
  const q = new Map<string, number>();
  for (const part of acceptEncoding.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    const weight = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    q.set(name.trim(), weight === undefined ? 1 : Number(weight));
  }
  return preference.find((encoding) => (q.get(encoding) ?? q.get("*") ?? 0) > 0) ?? null;
}

/** How hard to compress: per answer while the visitor waits, or once for an answer kept (page-cache.ts). */
export interface Effort {
  brotliQuality: number;
  gzipLevel: number;
}

const PER_ANSWER: Effort = { brotliQuality: 4, gzipLevel: 6 };

// Brotli, when it is the one the browser accepts: the answer's quality in a 64 KB window.
const BROTLI_PER_ANSWER = {
  params: {
    [constants.BROTLI_PARAM_QUALITY]: PER_ANSWER.brotliQuality,
    [constants.BROTLI_PARAM_LGWIN]: 16,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
  },
};

/** A whole body compressed with `encoding`, as bytes a Response sends as they are. */
export function compressWhole(body: Uint8Array, encoding: Encoding, effort = PER_ANSWER): Uint8Array<ArrayBuffer> {
  const out = encoding === "br"
    ? brotliCompressSync(body, {
      ...BROTLI_PER_ANSWER,
      params: {
        ...BROTLI_PER_ANSWER.params,
        [constants.BROTLI_PARAM_QUALITY]: effort.brotliQuality,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
      },
    })
    : gzipSync(body, { level: effort.gzipLevel });
  return new Uint8Array(out.buffer as ArrayBuffer, out.byteOffset, out.byteLength);
}

/** A weak ETag stays as it is; a strong one names the encoding, since the bytes differ (RFC 9110 §8.8.3). */
function etagFor(etag: string, encoding: Encoding): string {
  return etag.startsWith("W/") ? etag : etag.replace(/"$/, `-${encoding}"`);
}

/**
 * Compresses every text answer over 1 KB (HTML, JSON, CSS, JS, SVG, XML, CSV…) with gzip or
 * brotli, as the request's Accept-Encoding allows (PER_ANSWER_PREFERENCE), and says `Vary: Accept-Encoding` on every text
 * answer, compressed or not, so that no shared cache hands one visitor's encoding to another.
 * An answer already encoded (the precompressed assets, decision 034) is left as it is, as is one
 * that says `Cache-Control: no-transform`.
 *
 * A body that arrives in one piece (every rendered page and call) is compressed whole, with its
 * Content-Length. A body that arrives in pieces (a download written as it is produced) is
 * compressed as a stream, so it keeps streaming.
 */
export function compression(): MiddlewareHandler {
  return async function compress(c, next) {
    await next();
    const res = c.res;
    const type = res.headers.get("content-type");
    if (!type || !COMPRESSIBLE_CONTENT_TYPE_REGEX.test(type)) return;
    if (!res.headers.get("vary")?.toLowerCase().includes("accept-encoding")) {
      res.headers.append("vary", "Accept-Encoding");
    }
    if (res.headers.has("content-encoding") || res.status === 204 || res.status === 206 || res.status === 304) return;
    if (/\bno-transform\b/i.test(res.headers.get("cache-control") ?? "")) return;
    const encoding = negotiateEncoding(c.req.header("accept-encoding"));
    if (!encoding) return;
    const length = Number(res.headers.get("content-length") ?? NaN);
    if (length < COMPRESSION_THRESHOLD) return;
    // Read last: asking a Response for its body makes a stream of bytes it would otherwise hand to
    // the server whole, and an answer that is not compressed here (a kept page, a built asset, a
    // small one) should keep that.
    if (!res.body) return;

    const reader = res.body.getReader();
    const first = await reader.read();
    const second = first.done ? first : await reader.read();
    const headers = new Headers(res.headers);
    headers.set("content-encoding", encoding);
    const etag = headers.get("etag");
    if (etag) headers.set("etag", etagFor(etag, encoding));

    if (second.done) {
      // The whole body: small ones go out as they are.
      const body = first.value ?? new Uint8Array();
      if (body.byteLength < COMPRESSION_THRESHOLD) {
        replace(c, new Response(body, res));
        return;
      }
      const compressed = compressWhole(body, encoding);
      headers.set("content-length", String(compressed.byteLength));
      replace(c, new Response(compressed, { status: res.status, statusText: res.statusText, headers }));
      return;
    }

    headers.delete("content-length");
    const body = compressPieces([first.value!, second.value!], reader, encoding);
    replace(c, new Response(body, { status: res.status, statusText: res.statusText, headers }));
  };
}

/**
 * Compresses a body that arrives in pieces, each piece flushed as it comes: the browser gets every
 * row of a download as soon as it is written, not when the compressor's buffer happens to fill.
 */
function compressPieces(
  firstPieces: Uint8Array[],
  reader: ReadableStreamDefaultReader<Uint8Array>,
  encoding: Encoding,
): ReadableStream<Uint8Array> {
  const compressor = encoding === "br"
    ? createBrotliCompress({ ...BROTLI_PER_ANSWER, flush: constants.BROTLI_OPERATION_FLUSH })
    : createGzip({ level: PER_ANSWER.gzipLevel, flush: constants.Z_SYNC_FLUSH });
  const write = (piece: Uint8Array) => new Promise<void>((done) => compressor.write(piece, () => done()));
  let ended = false;
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      compressor.on("data", (out: Uint8Array) => controller.enqueue(new Uint8Array(out)));
      compressor.on("end", () => controller.close());
      compressor.on("error", (error) => controller.error(error));
      for (const piece of firstPieces) await write(piece);
    },
    async pull() {
      if (ended) return;
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        compressor.end();
      } else {
        await write(value);
      }
    },
    cancel(reason) {
      compressor.destroy();
      return reader.cancel(reason);
    },
  });
}

/**
 * Puts the compressed answer in place of the original. Hono copies the old answer's headers onto a
 * new one; here they are already in it, some changed (ETag, Content-Length), so the old goes first.
 */
function replace(c: Context, res: Response): void {
  c.res = undefined;
  c.res = res;
}
