import { zValidator } from "@hono/zod-validator";
import type { HonoRequest, MiddlewareHandler, ValidationTargets } from "hono";
import type { z } from "zod";
import { ApiError } from "./api.ts";

/** The failing fields of a zod error, by dotted path ("address.country"), first problem each. */
export function fieldsOf(error: z.ZodError): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const path = issue.path.map(String).join(".") || "_";
    fields[path] ??= issue.message;
  }
  return fields;
}

const refusal = (error: z.ZodError) => {
  const fields = fieldsOf(error);
  return new ApiError(422, Object.values(fields)[0] ?? "The request is not valid.", { fields });
};

/**
 * Validates a request's path parameters or query with a zod schema. A failure is a 422 naming the
 * first problem as the error and every failing field, and the handler does not run: bad input
 * changes nothing.
 */
export function valid<T extends z.ZodType, Target extends keyof ValidationTargets>(target: Target, schema: T) {
  return zValidator(target, schema, (result) => {
    if (!result.success) throw refusal(result.error as unknown as z.ZodError);
  });
}

export const NOT_JSON = "Send the request body as JSON, with the header Content-Type: application/json.";

/**
 * A JSON call's body must say it is JSON: `application/json`, in UTF-8 if it names a charset
 * (RFC 8259). Anything else is a 415 and nothing reads the body: a form post or text/plain is
 * never read as JSON by accident, and a client learns at once what it must send (decision 024).
 */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const [type, ...parameters] = header.split(";").map((part) => part.trim().toLowerCase());
  if (type !== "application/json") return false;
  return parameters.every((p) => !p.startsWith("charset=") || /^charset="?utf-8"?$/.test(p));
}

/**
 * A request that carries no body: no Content-Type, no Transfer-Encoding, no length or a length of
 * 0, and nothing in it. Over HTTP/1.1 a request without a length or chunked framing has no body
 * (RFC 9112 section 6.3: a DELETE sent by curl without -d, or by fetch without a body), yet Deno
 * hands it over as an empty stream, not a null body, so the headers decide, and what arrived (the
 * body limit has already read it: server/http/body-limit.ts) is checked to be empty, so that bytes
 * sent without any framing header (HTTP/2 needs none) are never taken for no body.
 */
async function sentNoBody(request: HonoRequest): Promise<boolean> {
  const { headers } = request.raw;
  if (headers.has("content-type") || headers.has("transfer-encoding")) return false;
  const length = headers.get("content-length");
  if (length !== null && length.trim() !== "0") return false;
  return request.raw.body === null || (await request.arrayBuffer()).byteLength === 0;
}

/** Refuses a body that is not declared as JSON (415). */
export const jsonOnly: MiddlewareHandler = async function jsonOnly(c, next) {
  if (!isJsonContentType(c.req.header("content-type")) && !(await sentNoBody(c.req))) {
    throw new ApiError(415, NOT_JSON);
  }
  await next();
};

/**
 * A document call's body must say it is one of its media types (a charset, if named, UTF-8): else
 * a 415 naming what to send, and nothing reads the body.
 */
export function mediaTypeOnly(types: readonly string[]): MiddlewareHandler {
  return async function mediaTypeOnly(c, next) {
    const [type, ...parameters] = (c.req.header("content-type") ?? "").split(";").map((p) => p.trim().toLowerCase());
    const utf8 = parameters.every((p) => !p.startsWith("charset=") || /^charset="?utf-8"?$/.test(p));
    if (!types.includes(type) || !utf8) {
      throw new ApiError(
        415,
        `Send the file as the request body, with the header Content-Type: ${types.join(" or ")}.`,
      );
    }
    await next();
  };
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A JSON call's body: declared as JSON (else 415), UTF-8 and well formed (else 400, in words a
 * developer can act on), then validated with the contract's schema (else 422 naming each field).
 * The handler reads the result as c.req.valid("json").
 */
export function jsonBody<T extends z.ZodType>(schema: T): MiddlewareHandler {
  return async function jsonBody(c, next) {
    let value: unknown;
    if (await sentNoBody(c.req)) {
      // No body at all (as SPEC.md's DELETE calls are sent): an empty object, which the schema
      // then accepts (every field optional) or refuses naming the fields it needs.
      value = {};
    } else {
      if (!isJsonContentType(c.req.header("content-type"))) throw new ApiError(415, NOT_JSON);
      try {
        value = JSON.parse(utf8.decode(await c.req.arrayBuffer()));
      } catch {
        throw new ApiError(400, 'The request body is not valid JSON (UTF-8 text such as {"name": "value"}).');
      }
    }
    const result = await schema.safeParseAsync(value);
    if (!result.success) throw refusal(result.error);
    c.req.addValidatedData("json", result.data as object);
    await next();
  };
}
