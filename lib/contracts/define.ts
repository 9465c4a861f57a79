/**
 * A call's contract: its method and path under /api/, who may make it, what it takes and what it
 * answers, as zod schemas. The server registers each call from its contract (server/http/route.ts:
 * the guards, the validation of every input, the type of the answer), and islands take their types
 * from it with `import type`, so the two sides cannot drift. In tests every answer is also parsed
 * against its contract (decision 011).
 */
import type { z } from "zod";
import type { Permission } from "../permissions.ts";
import type { GuardName } from "./guards.ts";
// Every contract's refusals in the product's words: installs the error map (decision 024).
import "./messages.ts";

export type Method = "GET" | "POST" | "PUT" | "DELETE";

/**
 * The most a request's body may weigh unless its call says more: 16 KB holds the largest form a
 * person fills in here several times over, and is read in microseconds (decision 024).
 */
export const DEFAULT_BODY_LIMIT = 16 * 1024;

export interface CallContract {
  method: Method;
  /** Under /api/, in Hono's syntax: "/account/recipients/:id". */
  path: string;
  /** What the call is for, in a line (docs/API.md and the OpenAPI document). */
  summary: string;
  /** Who may make it: guard names checked in order (SPEC.md section 6); none for anyone. */
  guards: readonly GuardName[];
  /**
   * Whether the call moves money (a conversion, a payment, an approval): refused with 403 for a
   * restricted customer (decision 048). Every customer call that changes something must say it,
   * true or false (tests/integration/console-restrict.test.ts walks them).
   */
  movesMoney?: boolean;
  /** What the customer's role on the current account must allow (lib/permissions.ts). */
  permission?: Permission;
  params?: z.ZodType;
  query?: z.ZodType;
  /** The JSON body, sent as `application/json` (anything else is a 415). */
  body?: z.ZodType;
  /**
   * The handler reads the body's exact bytes itself (a signature covers them), so no schema parses
   * it first; it is still JSON, sent as `application/json`.
   */
  signedBody?: true;
  /**
   * The body is a document, not JSON: one of these media types (else 415), handed to the handler
   * as text to read itself, such as a bank's statement file ("application/xml").
   */
  textBody?: readonly string[];
  /** The most a request's body may weigh, in bytes: DEFAULT_BODY_LIMIT unless the call needs more. */
  bodyLimit?: number;
  /** The `body` of a success. */
  answer: z.ZodType;
  /** The status of a success: 200, 201 when the call creates something, 202 when a background job will do it. */
  status?: 200 | 201 | 202;
  /**
   * The answer is sent as it is, not inside `{"body": …}`: a document read by other tools (the
   * OpenAPI document), not by the islands.
   */
  rawAnswer?: true;
}

/** Declares a contract; `const` keeps its literal method and path. */
export function defineCall<const C extends CallContract>(call: C): C {
  return call;
}

type Out<S> = S extends z.ZodType ? z.output<S> : Record<string, never>;
type In<S> = S extends z.ZodType ? z.input<S> : Record<string, never>;

/** What a success answers in `body`. */
export type AnswerOf<C extends CallContract> = z.output<C["answer"]>;
/** What the server's handler receives once every input is validated. */
export interface InputOf<C extends CallContract> {
  params: Out<C["params"]>;
  query: Out<C["query"]>;
  body: Out<C["body"]>;
}
/** What a client sends as the JSON body. */
export type BodyOf<C extends CallContract> = In<C["body"]>;
/** What a client puts in the query string. */
export type QueryOf<C extends CallContract> = In<C["query"]>;
