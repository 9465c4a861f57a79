import { z } from "zod";

/**
 * The JSON shapes of Hrana over HTTP (versions 2 and 3), as libSQL's protocol specification
 * (docs/HRANA_3_SPEC.md in the libsql repository) defines them. A request body that does not
 * parse is a protocol error (HTTP 400). Fields the specification does not name are ignored, as it
 * requires of a peer.
 */

const int32 = z.number().int().min(-(2 ** 31)).max(2 ** 31 - 1);

export const Value = z.discriminatedUnion("type", [
  z.object({ type: z.literal("null") }),
  // A 64-bit integer travels as a string, so that JSON's doubles lose nothing.
  z.object({ type: z.literal("integer"), value: z.string().regex(/^-?\d+$/) }),
  z.object({ type: z.literal("float"), value: z.number() }),
  z.object({ type: z.literal("text"), value: z.string() }),
  z.object({ type: z.literal("blob"), base64: z.string() }),
]);
export type Value = z.infer<typeof Value>;

export const Stmt = z.object({
  sql: z.string().nullish(),
  sql_id: int32.nullish(),
  args: z.array(Value).optional(),
  named_args: z.array(z.object({ name: z.string(), value: Value })).optional(),
  want_rows: z.boolean().optional(),
});
export type Stmt = z.infer<typeof Stmt>;

export type BatchCond =
  | { type: "ok"; step: number }
  | { type: "error"; step: number }
  | { type: "not"; cond: BatchCond }
  | { type: "and"; conds: BatchCond[] }
  | { type: "or"; conds: BatchCond[] }
  | { type: "is_autocommit" };

const step = z.number().int().min(0);
export const BatchCond: z.ZodType<BatchCond> = z.lazy(() =>
  z.discriminatedUnion("type", [
    z.object({ type: z.literal("ok"), step }),
    z.object({ type: z.literal("error"), step }),
    z.object({ type: z.literal("not"), cond: BatchCond }),
    z.object({ type: z.literal("and"), conds: z.array(BatchCond) }),
    z.object({ type: z.literal("or"), conds: z.array(BatchCond) }),
    z.object({ type: z.literal("is_autocommit") }),
  ])
);

export const Batch = z.object({
  steps: z.array(z.object({ condition: BatchCond.nullish(), stmt: Stmt })),
});
export type Batch = z.infer<typeof Batch>;

const sqlText = { sql: z.string().nullish(), sql_id: int32.nullish() };

export const StreamRequest = z.discriminatedUnion("type", [
  z.object({ type: z.literal("close") }),
  z.object({ type: z.literal("execute"), stmt: Stmt }),
  z.object({ type: z.literal("batch"), batch: Batch }),
  z.object({ type: z.literal("sequence"), ...sqlText }),
  z.object({ type: z.literal("describe"), ...sqlText }),
  z.object({ type: z.literal("store_sql"), sql_id: int32, sql: z.string() }),
  z.object({ type: z.literal("close_sql"), sql_id: int32 }),
  z.object({ type: z.literal("get_autocommit") }),
]);
export type StreamRequest = z.infer<typeof StreamRequest>;

export const PipelineReqBody = z.object({
  baton: z.string().nullish(),
  requests: z.array(StreamRequest),
});

/** The `Error` structure: a message for people and a code for programs. */
export interface ProtoError {
  message: string;
  code?: string | null;
}

export interface Col {
  name: string | null;
  decltype: string | null;
}

export interface StmtResult {
  cols: Col[];
  rows: Value[][];
  affected_row_count: number;
  last_insert_rowid: string | null;
}

export interface BatchResult {
  step_results: Array<StmtResult | null>;
  step_errors: Array<ProtoError | null>;
}

export type StreamResponse =
  | { type: "close" }
  | { type: "execute"; result: StmtResult }
  | { type: "batch"; result: BatchResult }
  | { type: "sequence" }
  | { type: "store_sql" }
  | { type: "close_sql" }
  | { type: "get_autocommit"; is_autocommit: boolean };

export type StreamResult = { type: "ok"; response: StreamResponse } | { type: "error"; error: ProtoError };

export interface PipelineRespBody {
  baton: string | null;
  base_url: string | null;
  results: StreamResult[];
}

/** Protocol versions this server speaks over HTTP: 2 and 3, JSON only. */
export type Version = 2 | 3;

/** A failure a correct client may see: reported in the result, the stream stays usable. */
export class StatementError extends Error {
  constructor(message: string, readonly code: string) {
    super(message);
  }

  toProto(): ProtoError {
    return { message: this.message, code: this.code };
  }
}

/** The client broke the protocol: the whole HTTP request fails with 400. */
export class ProtocolViolation extends Error {}
