/**
 * The OpenAPI 3.1 document of every call under /api/ (decision 042), made from the calls' own
 * contracts (lib/contracts, decision 011): the same zod schemas that route() validates with, turned
 * into JSON Schema by zod itself, so the document cannot say something the server does not check.
 * Inputs are described as a client sends them (zod's "input" side: before transforms and
 * defaults), answers as the server sends them.
 */
import { z } from "zod";
import { IDEMPOTENCY_HEADER, REFUSAL_CODES } from "../../lib/api-types.ts";
import type { CallContract } from "../../lib/contracts/define.ts";
import { DEFAULT_BODY_LIMIT } from "../../lib/contracts/define.ts";

type JsonSchema = Record<string, unknown>;

export interface OpenApiDocument {
  openapi: "3.1.0";
  info: { title: string; version: string; description: string };
  servers: { url: string }[];
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, unknown>;
}

/**
 * A console call (guarded as the console is): left out of the public document, since the console
 * does not reveal itself (decisions 004, 074); administrators read the whole one.
 */
export const isConsoleCall = (call: Pick<CallContract, "guards">) => call.guards.includes("is-admin");

/** "/account/recipients/:id" (Hono) as OpenAPI writes it: "/account/recipients/{id}". */
export function openApiPath(honoPath: string): string {
  return honoPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)(\{[^}]*\})?/g, "{$1}");
}

/** Where the call is described in the document: its path (with /api) and its method. */
export const documentedAt = (call: Pick<CallContract, "method" | "path">) => ({
  path: openApiPath(`/api${call.path}`),
  method: call.method.toLowerCase(),
});

function schemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema;
  delete json.$schema;
  // Definitions inside one schema would be referred to as "#/$defs/…", which means the document's
  // root once embedded: none of our contracts is recursive, and a new one that is must be told.
  if ("$defs" in json) throw new Error("A recursive contract schema cannot be embedded in the OpenAPI document.");
  return json;
}

/** The parameters of one location ("path" or "query") from an object schema's properties. */
function parameters(schema: z.ZodType | undefined, where: "path" | "query", call: CallContract) {
  if (!schema) return [];
  const json = schemaOf(schema, "input");
  const properties = json.properties as Record<string, JsonSchema> | undefined;
  if (json.type !== "object" || !properties) {
    throw new Error(`The ${where} schema of ${call.method} /api${call.path} is not an object of fields.`);
  }
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: where,
      required: where === "path" || required.has(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

const FAILURE = { $ref: "#/components/schemas/Failure" };
const failure = (description: string) => ({ description, content: { "application/json": { schema: FAILURE } } });

/** One call as an OpenAPI operation. */
function operation(call: CallContract): Record<string, unknown> {
  const guarded = call.guards.length > 0;
  const changes = call.method !== "GET";
  const answer = schemaOf(call.answer, "output");
  const status = String(call.status ?? 200);
  const responses: Record<string, unknown> = {
    [status]: {
      description: "Success: the answer in `body`; `redirect`, when present, is where the client goes next.",
      content: {
        "application/json": {
          schema: call.rawAnswer ? answer : {
            type: "object",
            properties: { body: answer, redirect: { type: "string" } },
            required: ["body"],
            additionalProperties: false,
          },
        },
      },
    },
  };
  if (guarded) {
    responses["401"] = failure("Not signed in, or the session has ended.");
    responses["403"] = failure("Signed in, but a step is missing or the role does not allow it.");
  }
  if (call.params || call.query || call.body) {
    responses["422"] = failure("An input is refused: `fields` names each one with its problem.");
  }
  if (call.body || call.signedBody) {
    responses["413"] = failure("The body weighs more than the call takes.");
    responses["415"] = failure("The body is not application/json.");
  }
  if (call.textBody) {
    responses["413"] = failure("The body weighs more than the call takes.");
    responses["415"] = failure(`The body is not ${call.textBody.join(" or ")}.`);
    responses["422"] = failure("The document is refused: `fields` says why.");
  }
  responses.default = failure("Any other refusal, in the product's words (404, 409, 429, 500…).");
  const headers = changes
    ? [{
      name: IDEMPOTENCY_HEADER,
      in: "header",
      required: false,
      description: "The same key sent again answers what the first request answered, without doing it twice.",
      schema: { type: "string", pattern: "^[\\x21-\\x7e]{1,255}$" },
    }]
    : [];
  const op: Record<string, unknown> = {
    operationId: operationId(call),
    summary: call.summary,
    tags: [call.path.split("/")[1] || "portal"],
    parameters: [...parameters(call.params, "path", call), ...parameters(call.query, "query", call), ...headers],
    responses,
    // Who may make it: a session cookie when any guard stands in front, and which guards, in order.
    security: guarded ? [{ session: [] }] : [],
    "x-guards": [...call.guards],
  };
  if (call.permission) op["x-permission"] = call.permission;
  if (call.body || call.signedBody) {
    op.requestBody = {
      required: true,
      content: { "application/json": { schema: call.body ? schemaOf(call.body, "input") : {} } },
    };
    op["x-body-limit"] = call.bodyLimit ?? DEFAULT_BODY_LIMIT;
  }
  if (call.textBody) {
    op.requestBody = {
      required: true,
      content: Object.fromEntries(call.textBody.map((type) => [type, { schema: { type: "string" } }])),
    };
    op["x-body-limit"] = call.bodyLimit ?? DEFAULT_BODY_LIMIT;
  }
  return op;
}

/** "GET /account/recipients/:id" as "getAccountRecipientsId": unique, since method and path are. */
function operationId(call: CallContract): string {
  const words = call.path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return call.method.toLowerCase() + words.map((w) => w[0].toUpperCase() + w.slice(1)).join("");
}

/** The document of the given calls, in the order of their paths. */
export function openApiDocument(calls: Iterable<CallContract>): OpenApiDocument {
  const paths: OpenApiDocument["paths"] = {};
  const sorted = [...calls].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  for (const call of sorted) {
    const { path, method } = documentedAt(call);
    (paths[path] ??= {})[method] = operation(call);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Portal API",
      version: "1",
      description: "The calls under /api/, generated from their contracts (lib/contracts). " +
        'A success answers `{"body": …}`, a failure `{"error", "message", "fields"?}` (docs/API.md).',
    },
    servers: [{ url: "/" }],
    paths,
    components: {
      securitySchemes: {
        session: {
          type: "apiKey",
          in: "cookie",
          name: "session",
          description: "The session cookie set by signing in; writes must also come from the portal's own origin.",
        },
      },
      schemas: {
        Failure: {
          type: "object",
          properties: {
            error: { type: "string", description: "What went wrong, for the user." },
            message: { type: "string", description: "The HTTP status text." },
            code: {
              type: "string",
              enum: [...REFUSAL_CODES],
              description: "Which refusal this is, for a program; only on the refusals that name one.",
            },
            fields: { type: "object", additionalProperties: { type: "string" } },
            redirect: { type: "string" },
          },
          required: ["error", "message"],
        },
      },
    },
  };
}
