/**
 * Every refusal of bad input names the field and says what is expected in the product's words,
 * never in the validation library's ("Invalid input: expected string, received undefined"): issue
 * 14, finding 7; decision 024. For every call that takes a body or a query, the test sends what
 * the walk of its contract finds (tests/helpers/contract-inputs.ts): every field missing, and every
 * field of the wrong type, through the app as the right kind of user. A call written ahead of its
 * route is checked on its schema, with the 422's own field reader.
 */
import { beforeAll, describe, expect, test } from "vitest";
import type { CallContract } from "../../lib/contracts/define.ts";
import { fieldsOf as failingFields } from "../../server/http/validate.ts";
import { REGISTERED_CALLS } from "../../server/http/route.ts";
import { type Callers, callers } from "../helpers/contract-callers.ts";
import {
  allContracts,
  type Field,
  GENERIC_WORDS,
  type Input,
  inputsOf,
  setAt,
  valueAt,
} from "../helpers/contract-inputs.ts";

let the: Callers;
let contracts: Map<string, CallContract>;

beforeAll(async () => {
  the = await callers();
  contracts = await allContracts();
});

const WRONG: Record<Field["kind"], unknown> = {
  string: true,
  number: "twelve",
  boolean: "yes",
  choice: 12345,
  object: "text",
  array: "text",
  other: Symbol("skip"),
};

const join = (path: (string | number)[]) => path.join(".");

/** Bodies with fields missing: the whole body empty, then each object in it present and empty. */
function missingBodies(fields: Field[]): { body: unknown; named: string[] }[] {
  const childrenOf = (at: (string | number)[]) =>
    fields.filter((f) => f.required && f.path.length === at.length + 1 && join(f.path.slice(0, -1)) === join(at))
      .map((f) => join(f.path));
  const containers = fields.filter((f) => f.kind === "object").map((f) => f.path);
  return [
    { body: {}, named: childrenOf([]) },
    ...containers.map((at) => ({ body: valueAt(at, {}), named: childrenOf(at) })),
  ]
    .filter(({ named }) => named.length > 0);
}

/** A body with every field of the wrong type: text where a number is due, a number for text... */
function wrongBody(fields: Field[]): { body: unknown; named: string[] } {
  const leaves = fields.filter((f) => f.kind !== "object" && f.kind !== "array" && f.kind !== "other");
  let body: unknown = {};
  for (const leaf of leaves) body = setAt(body, leaf.path, WRONG[leaf.kind]);
  return { body, named: leaves.map((f) => join(f.path)) };
}

/** What the app (or, for a call without a route yet, its schema) answers for `value`. */
async function refusalOf(
  key: string,
  contract: CallContract,
  input: Input,
  value: unknown,
): Promise<{ status: number; text: string; fields: Record<string, string> }> {
  if (![...REGISTERED_CALLS].some((c) => `${c.method} ${c.path}` === key)) {
    const result = input.schema.safeParse(value);
    const fields = result.success ? {} : failingFields(result.error);
    return { status: result.success ? 200 : 422, text: JSON.stringify(fields), fields };
  }
  const client = the.callerOf(contract, input.as);
  const res = input.part === "query"
    ? await client.get(`${the.pathOf(contract)}?${new URLSearchParams(value as Record<string, string>)}`)
    : await client.request(
      contract.method,
      the.pathOf(contract),
      typeof value === "string" ? JSON.stringify(value) : value,
    );
  return { status: res.status, text: res.text, fields: res.json?.fields ?? {} };
}

function problems(answer: { status: number; text: string; fields: Record<string, string> }, named: string[]) {
  const found: string[] = [];
  if (answer.status !== 422) found.push(`answered ${answer.status}: ${answer.text.slice(0, 200)}`);
  if (GENERIC_WORDS.test(answer.text)) found.push(`generic words in ${answer.text.slice(0, 300)}`);
  for (const field of named) {
    if (!(field in answer.fields)) found.push(`${field} is not named (fields: ${Object.keys(answer.fields)})`);
  }
  return found;
}

describe("a refusal names every field in the product's words", () => {
  test("every field missing", async () => {
    const found: string[] = [];
    for (const [key, contract] of contracts) {
      for (const input of inputsOf(key, contract).filter((i) => i.part !== "params")) {
        const fields = input.fields.filter((f) => join(f.path) !== input.chosenBy);
        for (const { body, named } of missingBodies(fields)) {
          const answer = await refusalOf(key, contract, input, body);
          found.push(...problems(answer, named).map((p) => `${key} ${input.part} ${JSON.stringify(body)}: ${p}`));
        }
      }
    }
    expect(found).toEqual([]);
  });

  test("every field of the wrong type", async () => {
    const found: string[] = [];
    for (const [key, contract] of contracts) {
      for (const input of inputsOf(key, contract).filter((i) => i.part === "body")) {
        const { body, named } = wrongBody(input.fields);
        const answer = await refusalOf(key, contract, input, body);
        found.push(...problems(answer, named).map((p) => `${key} ${JSON.stringify(body)}: ${p}`));
      }
    }
    expect(found).toEqual([]);
  });

  test("a body that is not an object of fields", async () => {
    const found: string[] = [];
    for (const [key, contract] of contracts) {
      for (const input of inputsOf(key, contract).filter((i) => i.part === "body")) {
        for (const body of [["a", "list"], "text", 42, null]) {
          const answer = await refusalOf(key, contract, input, body);
          found.push(...problems(answer, []).map((p) => `${key} ${JSON.stringify(body)}: ${p}`));
        }
      }
    }
    expect(found).toEqual([]);
  });
});
