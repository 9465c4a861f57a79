/**
 * The portal's log: one JSON object per line on standard output (decision 041), so that a log
 * collector (journald, a container runtime, Deno Deploy's logs) can search it by field. Every line
 * logged while a request is being answered carries that request's id, which is also on the answer
 * (X-Request-Id) and in its error answers: a customer who quotes the reference on an error page
 * leads straight to what the server logged about it.
 *
 *   log.info("rates updated", { rates: 31 });
 *   log.error("job failed", { job_id: 4, error });
 *
 * The level comes from LOG_LEVEL (debug, info, warn, error, silent); it is "info" by default and
 * "warn" under tests (APP_ENV or NODE_ENV test): no line per request, only what went wrong.
 * Errors go to standard error, warnings through console.warn, the rest to standard output: the
 * test setup fails a test that logs an error it did not expect (tests/helpers/setup.ts).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import process from "node:process";

export type LogLevel = "debug" | "info" | "warn" | "error";
const ORDER: Record<LogLevel | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** What every line logged inside a request carries (set by requestIds, server/http/request-id.ts). */
export interface RequestLogContext {
  request_id: string;
}

const requestContext = new AsyncLocalStorage<RequestLogContext>();

/** Runs `fn` with every line it logs (and everything it awaits) tagged with `context`. */
export function withLogContext<T>(context: RequestLogContext, fn: () => T): T {
  return requestContext.run(context, fn);
}

/** The id of the request being answered, when there is one. */
export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.request_id;
}

function levelFromEnvironment(): number {
  const named = (process.env.LOG_LEVEL ?? "").toLowerCase();
  if (named in ORDER) return ORDER[named as LogLevel];
  const testing = process.env.APP_ENV === "test" || process.env.NODE_ENV === "test";
  return ORDER[testing ? "warn" : "info"];
}

let threshold = levelFromEnvironment();

/**
 * Lines for standard output, written together at most every FLUSH_AFTER_MS: at info level
 * every request logs a line, and one console.log per line (a synchronous write each, and console's
 * formatting) was about a tenth of a served page's CPU (docs/PERFORMANCE.md, issue 9). Warnings and
 * errors go out at once, after whatever is pending, so the order of the lines is kept; so does
 * everything pending when the process ends.
 */
let pending = "";
let flushing: ReturnType<typeof setTimeout> | null = null;
const encoder = new TextEncoder();

/** Writes the pending lines now. */
export function flushLog(): void {
  if (flushing !== null) {
    clearTimeout(flushing);
    flushing = null;
  }
  if (!pending) return;
  const bytes = encoder.encode(pending);
  pending = "";
  try {
    for (let written = 0; written < bytes.length;) written += Deno.stdout.writeSync(bytes.subarray(written));
  } catch { /* standard output closed: nothing more can be said */ }
}

/**
 * How long a line may wait for the ones after it. Under load a turn of the event loop answers a
 * few requests only, and one write per turn was 8 % of a kept page's CPU (decision 059); a line
 * still reaches the log within this, and at once when the process ends.
 */
const FLUSH_AFTER_MS = 10;

function buffered(line: string): void {
  pending += line + "\n";
  if (pending.length > 64 * 1024) flushLog();
  else flushing ??= setTimeout(flushLog, FLUSH_AFTER_MS);
}

globalThis.addEventListener("unload", flushLog);
process.on("exit", flushLog);
// A process that dies of an uncaught error gets no unload: what it logged last is what matters most.
globalThis.addEventListener("error", () => flushLog());
globalThis.addEventListener("unhandledrejection", () => flushLog());

const CONSOLE: Record<LogLevel, (line: string) => void> = {
  debug: buffered,
  info: buffered,
  warn: (line) => {
    flushLog();
    console.warn(line);
  },
  error: (line) => {
    flushLog();
    console.error(line);
  },
};
let write: ((line: string, level: LogLevel) => void) | null = null;

/**
 * For tests: sends the lines to `sink` from `level` up, until the returned function is called.
 */
export function captureLog(sink: (line: string, level: LogLevel) => void, level: LogLevel = "debug"): () => void {
  const before = { threshold, write };
  threshold = ORDER[level];
  write = sink;
  return () => ({ threshold, write } = before);
}

/** A query the database refused, as Drizzle throws it (DrizzleQueryError): the statement, its values, and why. */
function failedQuery(error: Error): { query: string; cause: unknown } | null {
  const { query, params } = error as Error & { query?: unknown; params?: unknown };
  return typeof query === "string" && Array.isArray(params) && error.message.startsWith("Failed query: ")
    ? { query, cause: error.cause }
    : null;
}

/**
 * An error's message as the log and a job's record keep it. A refused query's message ends with
 * every value it was sent ("params: ..."): a customer's passport number, date of birth, address and
 * phone when their profile was being saved, an emailed link's token. Those never reach the log:
 * the statement stays, with the database's own reason (the query's cause) after it.
 */
export function errorMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const query = failedQuery(error);
  if (!query) return error.message;
  return `Failed query: ${query.query}` + (query.cause === undefined ? "" : `: ${errorMessage(query.cause)}`);
}

/** An error as log fields: its name, message and stack (a thrown string or object as text). */
function errorFields(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    const message = errorMessage(error);
    // The stack starts with the message: the values of a refused query would be in it too.
    const stack = message === error.message ? error.stack : error.stack?.replace(error.message, message);
    return { name: error.name, message, stack };
  }
  return { message: String(error) };
}

/**
 * The line's time. Made once per millisecond: at info level every request logs a line, and
 * formatting a date was a third of a line's cost.
 */
let stampedAt = -1;
let stamp = "";
function timestamp(): string {
  const now = Date.now();
  if (now !== stampedAt) {
    stampedAt = now;
    stamp = new Date(now).toISOString();
  }
  return stamp;
}

function emit(level: LogLevel, msg: string, fields: Record<string, unknown> = {}): void {
  if (ORDER[level] < threshold) return;
  const line: Record<string, unknown> = { time: timestamp(), level, msg };
  const context = requestContext.getStore();
  if (context) Object.assign(line, context);
  for (const key in fields) {
    const value = fields[key];
    if (value === undefined) continue;
    line[key] = key === "error" ? errorFields(value) : value;
  }
  let text: string;
  try {
    // Without a replacer first: one is called for every key of every line, a request's line
    // included, and only a big integer needs it (JSON.stringify throws on one).
    text = JSON.stringify(line);
  } catch {
    try {
      text = JSON.stringify(line, (_key, value) => typeof value === "bigint" ? value.toString() : value);
    } catch {
      // A field that cannot be written (a cycle): the line still goes out, without its fields.
      text = JSON.stringify({ time: line.time, level, msg, ...context, fields: "(not serialisable)" });
    }
  }
  if (write) write(text, level);
  else CONSOLE[level](text);
}

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => emit("debug", msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => emit("info", msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => emit("warn", msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => emit("error", msg, fields),
};
