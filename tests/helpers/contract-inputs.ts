/**
 * Every call's contract and the fields of what it takes, found by walking its zod schemas, for the
 * tests that hold a rule over every input of every call (tests/unit/contract-text-fields.test.ts,
 * tests/integration/contract-refusals.test.ts): a field added tomorrow is walked too.
 */
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import type { CallContract } from "../../lib/contracts/define.ts";
import { MULTILINE_TEXTS } from "../../lib/contracts/common.ts";
import * as calls from "../../lib/contracts/onboarding.ts";
import * as adminCalls from "../../lib/contracts/admin.ts";
import * as consoleMoney from "../../lib/contracts/console-money.ts";
import * as consoleProfile from "../../lib/contracts/console-profile.ts";
import { profileSchemas } from "../../server/profile/schema.ts";

/**
 * What zod says when a schema gives no words of its own ("Invalid input: expected string, received
 * undefined", "Too small: expected string to have >=1 characters", "Unrecognized key: x"): a
 * refusal must never say it to a person.
 */
export const GENERIC_WORDS =
  /\bInvalid\b|Too (big|small)|Unrecognized key|\bexpected (one of|string|number|int|boolean|object|array|[a-z]+ to (have|be))\b|, received [a-z]/;

const CONTRACTS_DIR = resolve(import.meta.dirname!, "../../lib/contracts");

const isContract = (value: unknown): value is CallContract =>
  typeof value === "object" && value !== null && "method" in value && "path" in value && "answer" in value;

/** Every contract exported from lib/contracts/, once each, by "METHOD /path". */
export async function allContracts(): Promise<Map<string, CallContract>> {
  const found = new Map<string, CallContract>();
  for (const name of readdirSync(CONTRACTS_DIR).filter((n) => n.endsWith(".ts")).sort()) {
    const module = await import(join(CONTRACTS_DIR, name));
    for (const value of Object.values(module)) {
      if (isContract(value)) found.set(`${value.method} ${value.path}`, value);
    }
  }
  return found;
}

const profiles = profileSchemas(new Date("2026-11-22"));

/**
 * Inputs a contract cannot state in zod and the server checks instead, with the schemas that do
 * check them. The walk refuses an opaque input (z.custom, z.unknown, a bare transform) that is not
 * named here, so a new one cannot slip past the rules unwalked.
 */
export const CHECKED_BEHIND: Record<string, Behind[]> = {
  // The profile's rules depend on the customer's type and today's date (server/profile/schema.ts).
  [`${calls.saveProfile.method} ${calls.saveProfile.path}`]: [
    { at: "", schema: profiles.personalProfileSchema, as: "Personal" },
    { at: "", schema: profiles.businessProfileSchema, as: "Business" },
  ],
  // Support's changes to a profile: the customer's own rules, on the profile with the changes laid
  // over it (server/profile/support-change.ts, decision 078), so any field may be left out. Walked
  // on the walk's customer, a Personal one (contract-callers.ts).
  [`${consoleProfile.changeCustomerProfile.method} ${consoleProfile.changeCustomerProfile.path}`]: [
    { at: "changes", schema: z.object(profiles.personalProfileSchema.in.shape).partial(), as: "Personal" },
  ],
  // The compliance review's date may not be in the future, on the server's clock.
  [`${adminCalls.openAccount.method} ${adminCalls.openAccount.path}`]: [
    { at: "compliance", schema: profiles.complianceSchema },
  ],
  // One body or the other, chosen by a key (decision 022).
  [`${consoleMoney.changePricingPlan.method} ${consoleMoney.changePricingPlan.path}`]: [
    { at: "", schema: consoleMoney.planAssignment, chosenBy: "assign_account_ref" },
    { at: "", schema: consoleMoney.planBody },
  ],
};

/** A schema the server checks an opaque input with: at a path of the body, for a kind of customer. */
export interface Behind {
  at: string;
  schema: z.ZodType;
  /** The customer type the server checks this schema for. */
  as?: "Personal" | "Business";
  /** The key whose presence chooses this schema over another one behind the same call. */
  chosenBy?: string;
}

export type Part = "params" | "query" | "body";

/** One field of a request part: its path, and what kind of value its schema takes there. */
export interface Field {
  path: (string | number)[];
  kind: "string" | "number" | "boolean" | "choice" | "object" | "array" | "other";
  required: boolean;
  /** A text field that takes line breaks (`text({ multiline: true })`). */
  multiline?: boolean;
}

// zod's definitions are read as data here; their types are internal.
// deno-lint-ignore no-explicit-any
type Def = any;
const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

/**
 * The fields a schema takes, depth first: its leaves and the objects and lists that hold them.
 * `opaque` is called for an input the schema does not describe (custom, unknown, a transform).
 */
export function fieldsOf(
  schema: z.ZodType,
  opaque: (path: (string | number)[]) => void,
  path: (string | number)[] = [],
  required = true,
): Field[] {
  const def = defOf(schema);
  const inner = (s: unknown, req = required) => fieldsOf(s as z.ZodType, opaque, path, req);
  switch (def.type) {
    case "string":
    case "template_literal":
      return [{ path, kind: "string", required, multiline: MULTILINE_TEXTS.has(schema) }];
    case "number":
    case "bigint":
      return [{ path, kind: "number", required }];
    case "boolean":
      return [{ path, kind: "boolean", required }];
    case "enum":
    case "literal":
      return [{ path, kind: "choice", required }];
    case "optional":
    case "default":
    case "prefault":
      return inner(def.innerType, false);
    case "nullable":
    case "nonoptional":
    case "readonly":
    case "catch":
      return inner(def.innerType);
    case "pipe":
      // What the client sends is the pipe's input.
      return inner(def.in);
    case "lazy":
      return inner(def.getter());
    case "object": {
      const own: Field[] = path.length ? [{ path, kind: "object", required }] : [];
      return own.concat(
        Object.entries(def.shape as Record<string, z.ZodType>).flatMap(([key, field]) =>
          fieldsOf(field, opaque, [...path, key], true)
        ),
      );
    }
    case "array":
      return [{ path, kind: "array", required }, ...fieldsOf(def.element, opaque, [...path, 0], true)];
    case "record":
      return [{ path, kind: "object", required }, ...fieldsOf(def.valueType, opaque, [...path, "KEY"], true)];
    case "union":
    case "intersection": {
      const options: z.ZodType[] = def.type === "union" ? def.options : [def.left, def.right];
      const seen = new Map<string, Field>();
      for (const field of options.flatMap((o) => fieldsOf(o, opaque, path, required))) {
        const key = field.path.join(".");
        // A field that one option takes as text is text for this walk.
        if (!seen.has(key) || field.kind === "string") seen.set(key, field);
      }
      return [...seen.values()];
    }
    case "null":
    case "undefined":
    case "void":
    case "never":
      return [];
    default:
      // custom, unknown, any, transform: the schema does not say what it takes.
      opaque(path);
      return [{ path, kind: "other", required }];
  }
}

/** A value with `leaf` at `path` and nothing else: objects and lists made on the way. */
export function valueAt(path: (string | number)[], leaf: unknown): unknown {
  if (!path.length) return leaf;
  const [head, ...rest] = path;
  if (typeof head === "number") return [valueAt(rest, leaf)];
  return { [head]: valueAt(rest, leaf) };
}

/** Puts `leaf` at `path` in `into` (a value made by valueAt or a copy), answering the result. */
export function setAt(into: unknown, path: (string | number)[], leaf: unknown): unknown {
  if (!path.length) return leaf;
  const [head, ...rest] = path;
  if (typeof head === "number") {
    const list = Array.isArray(into) ? [...into] : [];
    list[head] = setAt(list[head], rest, leaf);
    return list;
  }
  const object = typeof into === "object" && into !== null && !Array.isArray(into) ? { ...into } : {};
  (object as Record<string, unknown>)[head] = setAt((object as Record<string, unknown>)[head], rest, leaf);
  return object;
}

/** One part of a request as a contract (or a schema behind it) takes it. */
export interface Input {
  part: Part;
  schema: z.ZodType;
  fields: Field[];
  /** Inputs the walk could not read and nothing checks behind. */
  opaque: string[];
  /** The customer type a schema behind the contract is for. */
  as?: "Personal" | "Business";
  /** The key that chooses this schema (it cannot be missing from a body checked with it). */
  chosenBy?: string;
}

/** What each part of a contract takes, with the schemas checked behind it walked in its place. */
export function inputsOf(key: string, contract: CallContract): Input[] {
  const out: Input[] = [];
  const behind = CHECKED_BEHIND[key] ?? [];
  for (const part of ["params", "query", "body"] as const) {
    const schema = contract[part];
    if (!schema) continue;
    const opaque: string[] = [];
    const fields = fieldsOf(schema, (path) => opaque.push(path.join(".")));
    const checkedBehind = (at: string) => part === "body" && behind.some((b) => b.at === at);
    out.push({
      part,
      schema,
      fields: fields.filter((f) => f.kind !== "other" || !checkedBehind(f.path.join("."))),
      opaque: opaque.filter((at) => !checkedBehind(at)),
    });
    if (part !== "body") continue;
    for (const { at, schema: inner, as, chosenBy } of behind) {
      const prefix = at ? at.split(".") : [];
      const innerOpaque: string[] = [];
      const innerFields = fieldsOf(inner, (path) => innerOpaque.push(path.join(".")), prefix);
      // Walked on its own schema: a field's value is put below `at` in the body sent.
      out.push({
        part,
        schema: at ? wrapAt(prefix, inner) : inner,
        fields: innerFields,
        opaque: innerOpaque,
        as,
        chosenBy,
      });
    }
  }
  return out;
}

/** A stand-in schema that parses `inner` at `prefix` of its input, with paths from the root. */
function wrapAt(prefix: string[], inner: z.ZodType): z.ZodType {
  return {
    safeParse(value: unknown) {
      let at = value;
      for (const key of prefix) at = (at as Record<string, unknown> | undefined)?.[key];
      const result = inner.safeParse(at);
      if (result.success) return result;
      return {
        success: false,
        error: { issues: result.error.issues.map((i) => ({ ...i, path: [...prefix, ...i.path] })) },
      };
    },
  } as unknown as z.ZodType;
}
