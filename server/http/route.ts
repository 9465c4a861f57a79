import type { Context, Hono, MiddlewareHandler } from "hono";
import { every } from "hono/combine";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import type { AnswerOf, CallContract, InputOf } from "../../lib/contracts/define.ts";
import type { Tx } from "../../db/sql.ts";
import type { AppEnv } from "../env.ts";
import { guards } from "../guards.ts";
import { allowedTo } from "../accounts/permissions.ts";
import { ok, success } from "./api.ts";
import { Refused } from "../errors.ts";
import { ACCOUNT_RESTRICTED_MESSAGE, RESTRICTED_MESSAGE } from "../../lib/restriction.ts";
import { accountChoice } from "../accounts/current.ts";
import { claimsWithEffect } from "./idempotency.ts";
import { jsonBody, jsonOnly, mediaTypeOnly, valid } from "./validate.ts";
import { type LinkingPage, refusedDownloadBackTo } from "./download.ts";

/**
 * What a handler may return besides its answer: the answer with where the client goes next, or a
 * status other than the contract's.
 */
export class Reply<A> {
  constructor(readonly body: A, readonly options: { redirect?: string; status?: ContentfulStatusCode } = {}) {}
}

export const reply = <A>(body: A, options: { redirect?: string; status?: ContentfulStatusCode } = {}) =>
  new Reply(body, options);

type Outcome<C extends CallContract> = AnswerOf<C> | Reply<AnswerOf<C>> | Response;

/**
 * For a call whose effect is one database transaction (a conversion, a payment): its answer,
 * stored under the request's Idempotency-Key inside that transaction, so that the answer commits
 * with the effect and every retry learns what happened, even after a crash between the COMMIT and
 * the reply (docs/decisions/025). Without a key it stores nothing. The call then answers exactly
 * what was stored, whatever the handler returns.
 */
export interface AnswerWithEffect<A> {
  storeWith(tx: Tx, answer: A): Promise<void>;
}

export type Handler<C extends CallContract> = (
  c: Context<AppEnv>,
  input: InputOf<C>,
  answer: AnswerWithEffect<AnswerOf<C>>,
) => Outcome<C> | Promise<Outcome<C>>;

/**
 * A call that moves money runs only for a customer who is not restricted (decision 048): the
 * customer the request is for, that is, the one an administrator acts for when they do; and only
 * on an account none of whose owners is restricted (amended: the payout desk already holds such an
 * account's payments, and another member must not move its money meanwhile). The account is the
 * one the handler acts on, read once per request.
 */
const moneyMayMove: MiddlewareHandler<AppEnv> = async (c, next) => {
  const customer = c.get("onBehalf") ?? c.get("user");
  if (customer?.restricted) throw new Refused(RESTRICTED_MESSAGE);
  if (customer && (await accountChoice(c)).current?.ownerRestricted) {
    throw new Refused(ACCOUNT_RESTRICTED_MESSAGE);
  }
  await next();
};

export interface RouteOptions {
  /**
   * The call's Idempotency-Key is claimed in its effect's own transaction, where the handler calls
   * `storeWith`, rather than by a commit of its own before the handler runs (decision 053). Only
   * for a handler all of whose writes are in that one transaction: it may run twice for two
   * attempts at once, and only the transaction that stores the key commits.
   */
  claimsKeyWithEffect?: boolean;
  /**
   * The call is a file a page links to (a download): its refusal, to a person following the link,
   * sends them back to this page with it as a notification rather than into a JSON answer or a
   * saved file (decision 075, server/http/download.ts).
   */
  linkedFrom?: LinkingPage;
}

/** Every call registered through route(), for the contract tests. */
export const REGISTERED_CALLS = new Set<CallContract>();

/**
 * Registers a call from its contract: its guards in order, then every input it declares validated
 * with zod (a failure is a 422 naming the fields, and the handler does not run; a body must be
 * JSON, else 415), then the handler,
 * whose answer is typed by the contract. In tests (APP_ENV=test) every answer is also parsed
 * against the contract, so a handler that drifts from it fails the test that called it.
 */
export function route<C extends CallContract>(
  app: Hono<AppEnv>,
  call: C,
  handler: Handler<C>,
  settings: RouteOptions = {},
): void {
  REGISTERED_CALLS.add(call);
  const before: MiddlewareHandler<AppEnv>[] = [guards(...call.guards)];
  if (call.movesMoney) before.push(moneyMayMove);
  if (call.permission) before.push(allowedTo(call.permission));
  // The handler reads the data through its contract's types, not through Hono's inferred
  // validator generics (decision 010), hence the plain middleware type.
  const check = (target: "param" | "query", schema: z.ZodType) =>
    valid(target, schema) as unknown as MiddlewareHandler<AppEnv>;
  // The body's media type first (a body that is not JSON is a 415 whatever else is wrong), then
  // the path's record, the body's fields, and the query string.
  if (call.body || call.signedBody) before.push(jsonOnly as MiddlewareHandler<AppEnv>);
  if (call.textBody) before.push(mediaTypeOnly(call.textBody) as MiddlewareHandler<AppEnv>);
  if (call.params) before.push(check("param", call.params));
  if (call.body) before.push(jsonBody(call.body) as MiddlewareHandler<AppEnv>);
  if (call.query) before.push(check("query", call.query));
  const respond = async (c: Context<AppEnv>) => {
    const input = {
      params: call.params ? c.req.valid("param" as never) : {},
      query: call.query ? c.req.valid("query" as never) : {},
      body: call.body ? c.req.valid("json" as never) : {},
    } as InputOf<C>;
    const status = call.status ?? 200;
    // Set by storeWith: the answer that committed with the effect.
    const stored: { text?: string } = {};
    const outcome = await handler(c, input, {
      async storeWith(tx, answer) {
        const claim = c.get("idempotency");
        if (!claim) return;
        if (c.get("config").appEnv === "test") checkAnswer(call, answer);
        const text = JSON.stringify(success(answer));
        await claim.storeWith(tx, { status, headers: [["content-type", "application/json"]], body: text });
        stored.text = text;
      },
    });
    if (stored.text !== undefined) return c.body(stored.text, status, { "content-type": "application/json" });
    if (outcome instanceof Response) return outcome;
    const { body, options } = outcome instanceof Reply ? outcome : { body: outcome, options: {} };
    if (c.get("config").appEnv === "test") checkAnswer(call, body);
    return ok(c, body, { redirect: options.redirect, status: options.status ?? status });
  };
  const handle = settings.claimsKeyWithEffect ? claimsWithEffect(respond) : respond;
  // First, on its own: it reads the answer of every later step, the guards' refusals included.
  if (settings.linkedFrom) {
    app.on(call.method, call.path, refusedDownloadBackTo(settings.linkedFrom), every(...before), handle);
  } else app.on(call.method, call.path, every(...before), handle);
}

/**
 * The answer as the client will read it (after JSON) must parse with the contract's schema, and
 * carry nothing the schema does not name: zod drops unknown fields when it parses, but the answer
 * sent is the handler's, so a field the contract leaves out (a row spread into the answer) would
 * reach the client unseen.
 */
function checkAnswer(call: CallContract, body: unknown): void {
  const sent: unknown = JSON.parse(JSON.stringify(body ?? null));
  const result = call.answer.safeParse(sent);
  const problems = result.success
    ? unnamedFields(sent, result.data).map((path) => `${path}: not in the contract`)
    : result.error.issues.map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`);
  if (problems.length) {
    throw new Error(
      `The answer of ${call.method} /api${call.path} does not match its contract: ${problems.join("; ")}`,
    );
  }
}

/** The fields of `sent` that the parsed answer does not have, as paths (items.0.password_hash). */
function unnamedFields(sent: unknown, parsed: unknown, path = ""): string[] {
  if (sent === null || typeof sent !== "object" || parsed === null || typeof parsed !== "object") return [];
  const at = (key: string) => (path ? `${path}.${key}` : key);
  if (Array.isArray(sent)) {
    return Array.isArray(parsed) ? sent.flatMap((item, i) => unnamedFields(item, parsed[i], at(String(i)))) : [];
  }
  const kept = parsed as Record<string, unknown>;
  return Object.entries(sent).flatMap(([key, value]) =>
    key in kept ? unnamedFields(value, kept[key], at(key)) : [at(key)]
  );
}
