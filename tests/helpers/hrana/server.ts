import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { Buffer } from "node:buffer";
import { SqliteConnection, SqliteFailure } from "./connection.ts";
import {
  type Batch,
  type BatchCond,
  type BatchResult,
  PipelineReqBody,
  type PipelineRespBody,
  ProtocolViolation,
  StatementError,
  type Stmt,
  type StreamRequest,
  type StreamResponse,
  type StreamResult,
  type Version,
} from "./protocol.ts";
import { splitStatements } from "../../../db/sql-text.ts";

/**
 * A test-only server that speaks libSQL's Hrana over HTTP (versions 2 and 3, JSON) in front of a
 * local SQLite file: what @libsql/client talks to for an `http://` URL, so that the database layer
 * runs here as it would against Turso or sqld, which cannot be reached from this machine. Written
 * from the protocol's specification (docs/HRANA_3_SPEC.md in the libsql repository); where the
 * specification leaves a choice, it does what libSQL's own server does:
 *
 * - `POST /v2/pipeline` and `/v3/pipeline`: a stream per baton; each answer carries a new baton
 *   (the stream's id and a sequence number, signed with HMAC-SHA256), so a baton used twice, forged
 *   or out of turn is refused (HTTP 400); a stream unused for 10 s expires and its transaction is
 *   rolled back.
 * - Requests: close, execute, batch (with ok / error / not / and / or / is_autocommit conditions),
 *   sequence, store_sql and close_sql (50 texts of at most 5 KB per stream), get_autocommit (v3).
 *   `describe` answers an error (NOT_IMPLEMENTED): the binding cannot tell a statement's parameters,
 *   and @libsql/client never sends it. Cursors (`/v3/cursor`) and Protobuf are not served: the
 *   client falls back to JSON pipelines, as it does with a server that lacks them.
 * - Values: integers as decimal strings (64 bits exactly), floats as JSON numbers, blobs in base64.
 * - Errors: "SQLite error: …" with SQLite's base code (SQLITE_CONSTRAINT …) and no extended code;
 *   SQL_MANY_STATEMENTS for two statements in one `execute`.
 * - Writers take turns as on libSQL's server: a statement that meets another stream's write lock
 *   waits for it (asynchronously, up to `lockWaitMs`) instead of failing at once.
 *
 * Each stream has its own SQLite connection (kept in a pool between streams), so transactions are
 * isolated as on the real server.
 */

export interface HranaServerOptions {
  /** The SQLite file served. */
  path: string;
  /** When set, every request must carry `Authorization: Bearer <token>` (Turso's auth tokens). */
  authToken?: string;
  /** A stream unused this long expires (libSQL's server: 10 s). */
  streamIdleMs?: number;
  /** How long a statement waits for another stream's write lock before SQLITE_BUSY. */
  lockWaitMs?: number;
}

export interface HranaServer {
  /** The URL to give @libsql/client (`http://127.0.0.1:PORT`). */
  url: string;
  /** What the server did, for tests that check the protocol was really used. */
  readonly stats: { pipelines: number; streamsOpened: number; lockWaits: number };
  close(): Promise<void>;
}

/** When no stream of this server ends a transaction, a waiting statement tries again this often (the lock may be another process's). */
const LOCK_POLL_MS = 20;
const MAX_STORED_SQL = 50;
const MAX_STORED_SQL_BYTES = 5 * 1024;
const EXPIRED_KEPT_MS = 300_000;

interface Stream {
  id: string;
  seq: bigint;
  connection: SqliteConnection | null;
  sqls: Map<number, string>;
  busy: boolean;
  lastUsed: number;
}

class StreamExpired extends Error {
  constructor() {
    super("The stream has expired due to inactivity");
  }
}

export function startHranaServer(options: HranaServerOptions): HranaServer {
  const hrana = new Hrana(options);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => hrana.handle(request));
  return {
    url: `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`,
    stats: hrana.stats,
    async close() {
      await server.shutdown();
      hrana.close();
    },
  };
}

class Hrana {
  readonly stats = { pipelines: 0, streamsOpened: 0, lockWaits: 0 };
  readonly #path: string;
  readonly #authToken?: string;
  readonly #idleMs: number;
  readonly #lockWaitMs: number;
  readonly #batonKey = randomBytes(32);
  readonly #streams = new Map<string, Stream>();
  /** Expired stream ids, kept a while to answer "expired" rather than "invalid baton". */
  readonly #expired = new Map<string, number>();
  readonly #idle: SqliteConnection[] = [];
  /** Statements waiting for a write lock, woken when a stream's transaction ends. */
  #lockWaiters: Array<() => void> = [];

  constructor(options: HranaServerOptions) {
    this.#path = options.path;
    this.#authToken = options.authToken;
    this.#idleMs = options.streamIdleMs ?? 10_000;
    this.#lockWaitMs = options.lockWaitMs ?? 5_000;
    // libSQL's server keeps its databases in WAL mode: readers beside the writer.
    const first = new SqliteConnection(this.#path);
    first.execute("PRAGMA journal_mode = WAL", { positional: [], named: [] }, false);
    this.#idle.push(first);
  }

  async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (this.#authToken !== undefined && request.headers.get("authorization") !== `Bearer ${this.#authToken}`) {
      return text(401, "Unauthorized: a valid auth token is required");
    }
    if (request.method === "GET" && (url.pathname === "/" || url.pathname === "/health")) {
      return text(200, "Hello, this is a test Hrana server (HTTP v2 and v3, JSON)");
    }
    if (request.method === "GET" && (url.pathname === "/v2" || url.pathname === "/v3")) return text(200, "");
    const version: Version | null = url.pathname === "/v2/pipeline" ? 2 : url.pathname === "/v3/pipeline" ? 3 : null;
    if (request.method !== "POST" || version === null) return text(404, `No such endpoint: ${url.pathname}`);
    try {
      return json(200, await this.#pipeline(await request.json(), version));
    } catch (error) {
      if (error instanceof ProtocolViolation || error instanceof SyntaxError) return text(400, error.message);
      if (error instanceof StreamExpired) return json(500, { message: error.message, code: "STREAM_EXPIRED" });
      return text(500, error instanceof Error ? error.message : String(error));
    }
  }

  close(): void {
    for (const stream of this.#streams.values()) stream.connection?.close();
    for (const connection of this.#idle) connection.close();
    this.#streams.clear();
    this.#idle.length = 0;
    for (const wake of this.#lockWaiters) wake();
  }

  async #pipeline(raw: unknown, version: Version): Promise<PipelineRespBody> {
    const parsed = PipelineReqBody.safeParse(raw);
    if (!parsed.success) throw new ProtocolViolation(`Invalid pipeline request: ${parsed.error.message}`);
    this.stats.pipelines++;
    this.#expireIdle();
    const stream = parsed.data.baton ? this.#acquire(parsed.data.baton) : this.#open();
    try {
      const results: StreamResult[] = [];
      for (const request of parsed.data.requests) results.push(await this.#request(stream, request, version));
      return { baton: stream.connection ? this.#baton(stream) : null, base_url: null, results };
    } catch (error) {
      // As on libSQL's server, a request that fails as a whole ends its stream (and its transaction).
      this.#closeStream(stream);
      throw error;
    } finally {
      stream.busy = false;
      stream.lastUsed = Date.now();
      if (!stream.connection) this.#streams.delete(stream.id);
    }
  }

  #open(): Stream {
    const id = randomBytes(8).toString("hex");
    const stream: Stream = {
      id,
      seq: randomBytes(8).readBigUInt64BE(),
      connection: this.#idle.pop() ?? new SqliteConnection(this.#path),
      sqls: new Map(),
      busy: true,
      lastUsed: Date.now(),
    };
    this.#streams.set(id, stream);
    this.stats.streamsOpened++;
    return stream;
  }

  /** The stream a baton names, if the baton is this server's, current and not in use. */
  #acquire(baton: string): Stream {
    const data = Buffer.from(baton, "base64url");
    if (data.length !== 48) throw new ProtocolViolation("Invalid baton");
    const payload = data.subarray(0, 16);
    if (!timingSafeEqual(this.#mac(payload), data.subarray(16))) throw new ProtocolViolation("Invalid baton");
    const id = payload.subarray(0, 8).toString("hex");
    const seq = payload.readBigUInt64BE(8);
    const stream = this.#streams.get(id);
    if (!stream) {
      if (this.#expired.has(id)) throw new StreamExpired();
      throw new ProtocolViolation("Invalid baton: no such stream");
    }
    if (stream.busy || stream.seq !== seq) {
      throw new ProtocolViolation("Baton reused: requests on a stream must be sent one after the other");
    }
    stream.busy = true;
    return stream;
  }

  #baton(stream: Stream): string {
    stream.seq = (stream.seq + 1n) & 0xffff_ffff_ffff_ffffn;
    const payload = Buffer.alloc(16);
    Buffer.from(stream.id, "hex").copy(payload, 0);
    payload.writeBigUInt64BE(stream.seq, 8);
    return Buffer.concat([payload, this.#mac(payload)]).toString("base64url");
  }

  #mac(payload: Uint8Array): Buffer {
    return createHmac("sha256", this.#batonKey).update(payload).digest();
  }

  /** Streams left unused past the idle limit are closed: their transaction rolls back, their lock is freed. */
  #expireIdle(): void {
    const now = Date.now();
    for (const stream of this.#streams.values()) {
      if (!stream.busy && now - stream.lastUsed > this.#idleMs) {
        this.#closeStream(stream);
        this.#streams.delete(stream.id);
        this.#expired.set(stream.id, now);
      }
    }
    for (const [id, at] of this.#expired) if (now - at > EXPIRED_KEPT_MS) this.#expired.delete(id);
  }

  #closeStream(stream: Stream): void {
    const connection = stream.connection;
    stream.connection = null;
    if (!connection) return;
    try {
      connection.reset();
      this.#idle.push(connection);
    } catch {
      connection.close();
    }
    this.#transactionEnded();
  }

  async #request(stream: Stream, request: StreamRequest, version: Version): Promise<StreamResult> {
    if (request.type !== "close" && !stream.connection) {
      throw new ProtocolViolation("The stream was closed by an earlier request");
    }
    try {
      const response = await this.#respond(stream, request, version);
      return { type: "ok", response };
    } catch (error) {
      if (error instanceof StatementError) return { type: "error", error: error.toProto() };
      throw error;
    } finally {
      if (stream.connection && !stream.connection.inTransaction) this.#transactionEnded();
    }
  }

  async #respond(stream: Stream, request: StreamRequest, version: Version): Promise<StreamResponse> {
    switch (request.type) {
      case "close":
        this.#closeStream(stream);
        return { type: "close" };
      case "execute": {
        const { sql, args, wantRows } = this.#statement(stream, request.stmt, version);
        return {
          type: "execute",
          result: await this.#run(stream, () => stream.connection!.execute(sql, args, wantRows)),
        };
      }
      case "batch":
        return { type: "batch", result: await this.#batch(stream, request.batch, version) };
      case "sequence": {
        const text = this.#sqlText(stream, request.sql, request.sql_id, version);
        for (const sql of splitStatements(text)) {
          await this.#run(stream, () => stream.connection!.execute(sql, { positional: [], named: [] }, false));
        }
        return { type: "sequence" };
      }
      case "describe":
        throw new StatementError("describe is not implemented by this test server", "NOT_IMPLEMENTED");
      case "store_sql":
        if (stream.sqls.has(request.sql_id)) {
          throw new ProtocolViolation(`SQL text ${request.sql_id} is already stored`);
        }
        if (stream.sqls.size >= MAX_STORED_SQL) {
          throw new StatementError(
            `The server already stores ${stream.sqls.size} SQL texts, it cannot store more`,
            "SQL_STORE_TOO_MANY",
          );
        }
        if (new TextEncoder().encode(request.sql).length > MAX_STORED_SQL_BYTES) {
          throw new StatementError("The statement is too large to be stored", "SQL_STORE_TOO_LARGE");
        }
        stream.sqls.set(request.sql_id, request.sql);
        return { type: "store_sql" };
      case "close_sql":
        stream.sqls.delete(request.sql_id);
        return { type: "close_sql" };
      case "get_autocommit":
        if (version < 3) throw new ProtocolViolation("get_autocommit needs protocol version 3");
        return { type: "get_autocommit", is_autocommit: !stream.connection!.inTransaction };
    }
  }

  #sqlText(stream: Stream, sql: string | null | undefined, sqlId: number | null | undefined, version: Version): string {
    if (sql != null && sqlId != null) throw new ProtocolViolation("Both sql and sql_id were given");
    if (sqlId != null) {
      if (version < 2) throw new ProtocolViolation("sql_id needs protocol version 2");
      const stored = stream.sqls.get(sqlId);
      if (stored === undefined) throw new ProtocolViolation(`No SQL text stored as ${sqlId}`);
      return stored;
    }
    if (sql == null) throw new ProtocolViolation("Neither sql nor sql_id was given");
    return sql;
  }

  #statement(stream: Stream, stmt: Stmt, version: Version) {
    const sql = this.#sqlText(stream, stmt.sql, stmt.sql_id, version);
    const statements = splitStatements(sql);
    if (statements.length === 0) {
      throw new StatementError("SQL string does not contain any statement", "SQL_NO_STATEMENT");
    }
    if (statements.length > 1) {
      throw new StatementError("SQL string contains more than one statement", "SQL_MANY_STATEMENTS");
    }
    return {
      sql,
      args: { positional: stmt.args ?? [], named: stmt.named_args ?? [] },
      wantRows: stmt.want_rows ?? true,
    };
  }

  async #batch(stream: Stream, batch: Batch, version: Version): Promise<BatchResult> {
    const result: BatchResult = { step_results: [], step_errors: [] };
    for (const [index, step] of batch.steps.entries()) {
      if (step.condition && !this.#holds(step.condition, index, result, stream, version)) {
        result.step_results.push(null);
        result.step_errors.push(null);
        continue;
      }
      try {
        const { sql, args, wantRows } = this.#statement(stream, step.stmt, version);
        result.step_results.push(await this.#run(stream, () => stream.connection!.execute(sql, args, wantRows)));
        result.step_errors.push(null);
      } catch (error) {
        if (!(error instanceof StatementError)) throw error;
        result.step_results.push(null);
        result.step_errors.push(error.toProto());
      }
    }
    return result;
  }

  /** A step's condition, from the outcomes of the steps before it. */
  #holds(cond: BatchCond, index: number, done: BatchResult, stream: Stream, version: Version): boolean {
    const earlier = (step: number) => {
      if (step >= index) {
        throw new ProtocolViolation(`A condition of step ${index} refers to step ${step}, not before it`);
      }
      return step;
    };
    switch (cond.type) {
      case "ok":
        return done.step_results[earlier(cond.step)] !== null;
      case "error":
        return done.step_errors[earlier(cond.step)] !== null;
      case "not":
        return !this.#holds(cond.cond, index, done, stream, version);
      case "and":
        return cond.conds.every((inner) => this.#holds(inner, index, done, stream, version));
      case "or":
        return cond.conds.some((inner) => this.#holds(inner, index, done, stream, version));
      case "is_autocommit":
        if (version < 3) throw new ProtocolViolation("The is_autocommit condition needs protocol version 3");
        return !stream.connection!.inTransaction;
    }
  }

  /**
   * Runs a statement; when another connection holds the write lock, waits for it to be released
   * (a transaction of another stream ending, or a poll for a lock held outside this server) and
   * runs it again: the statement that met the lock did nothing.
   */
  async #run<T>(stream: Stream, statement: () => T): Promise<T> {
    const deadline = Date.now() + this.#lockWaitMs;
    for (;;) {
      try {
        return statement();
      } catch (error) {
        if (!(error instanceof SqliteFailure) || !error.waitable || Date.now() >= deadline || !stream.connection) {
          throw error;
        }
        this.stats.lockWaits++;
        await this.#lockReleased(deadline);
        this.#expireIdle();
      }
    }
  }

  #lockReleased(deadline: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, Math.max(0, Math.min(LOCK_POLL_MS, deadline - Date.now())));
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#lockWaiters.push(done);
    });
  }

  #transactionEnded(): void {
    if (this.#lockWaiters.length === 0) return;
    const waiters = this.#lockWaiters;
    this.#lockWaiters = [];
    for (const wake of waiters) wake();
  }
}

function text(status: number, body: string): Response {
  return new Response(body, { status, headers: { "content-type": "text/plain" } });
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}
