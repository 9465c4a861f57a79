import type { Context, MiddlewareHandler } from "hono";
import type { SessionUser } from "../auth/session-user.ts";
import { TrieRouter } from "hono/router/trie-router";
import { type CallContract, DEFAULT_BODY_LIMIT } from "../../lib/contracts/define.ts";
import type { AppEnv } from "../env.ts";
import { evaluateGuards } from "../guards.ts";
import { ApiError } from "./api.ts";

/** "16 KB", "2 MB": a limit in the words of a refusal. */
export function sizeInWords(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}

const tooLarge = (limit: number) => new ApiError(413, `The request is too large: at most ${sizeInWords(limit)}.`);

/** Methods whose bodies nothing reads: a GET's body is never parsed, so it is never limited either. */
const WITHOUT_BODY = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Limits every request's body to what its call takes (the contract's `bodyLimit`, 16 KB unless it
 * says more; the same for anything that is not a call), BEFORE anything reads it: mounted ahead of
 * the idempotency layer, which hashes the body, and of the validators, which parse it (decision
 * 024). A Content-Length above the limit is refused without reading a byte; otherwise the body is
 * read as it streams, and at the first byte past the limit the stream is cancelled and the request
 * refused. The header is never trusted to be the size: a chunked body has none, and one that
 * understates the body would otherwise let it through. What was read (at most the limit) is handed
 * on as the request's body.
 *
 * A console call's larger limit (5 MB for a bank's statement or a migration's file) is an
 * administrator's only (decision 074): mounted after the session, the layer gives it to a caller
 * the call's guards let through (an administrator past the second factor), and anyone else the
 * ordinary limit, as for a path that does not exist, so that nobody else can have 5 MB read and
 * the console still does not reveal itself (decision 004).
 *
 * `calls` is read at the first request, once every route has registered its contract.
 */
export function bodyLimits(
  calls: () => Iterable<CallContract>,
  options: { prefix: string; fallback?: number },
): MiddlewareHandler<AppEnv> {
  const fallback = options.fallback ?? DEFAULT_BODY_LIMIT;
  let router: TrieRouter<CallContract> | undefined;
  const limitOf = (c: Context<AppEnv>) => {
    if (!router) {
      router = new TrieRouter<CallContract>();
      for (const call of calls()) router.add(call.method, options.prefix + call.path, call);
    }
    // Of several calls that match (a static and a parameterised path), the most generous the caller
    // may make: a request is never refused here that its call would take.
    const [matches] = router.match(c.req.method, c.req.path);
    const limits = matches.map(([call]) => limitFor(call, c.get("user"), fallback));
    return limits.length ? Math.max(...limits) : fallback;
  };

  return async function bodyLimit(c, next) {
    const body = c.req.raw.body;
    if (!body || WITHOUT_BODY.has(c.req.method)) return await next();
    const limit = limitOf(c);
    const declared = c.req.header("content-length");
    // The rest of a refused body is not read, not even to throw it away: the connection closes.
    c.header("Connection", "close");
    if (declared !== undefined && Number(declared) > limit) {
      await body.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    const bytes = await readAtMost(body, limit);
    c.header("Connection", undefined);
    c.req.raw = new Request(c.req.raw, { body: bytes });
    await next();
  };
}

/** A call's limit for this caller: a console call's own only for whom its guards let through. */
function limitFor(call: CallContract, user: SessionUser | null, fallback: number): number {
  const limit = call.bodyLimit ?? fallback;
  if (limit <= fallback || !call.guards.includes("is-admin")) return limit;
  return evaluateGuards(call.guards, user).pass ? limit : fallback;
}

/** The whole of `body` if it is at most `limit` bytes; else it is cancelled and the request refused. */
async function readAtMost(body: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
