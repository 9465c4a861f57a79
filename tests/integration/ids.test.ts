/**
 * Only canonical positive integers are ids, wherever an id enters: a path, a query, a body, a
 * page's address (issue 14, finding 7; decision 024). "0x5", "5.0", "05", " 5", "+5" and "5e0" are
 * not 5, and 9007199254740993 is not an id at all: read as a number it would be 9007199254740992,
 * another record's id. The walk finds every id field in the contracts (tests/helpers/contract-inputs.ts),
 * so a field added tomorrow that forgets `idText` fails here.
 */
import { beforeAll, describe, expect, test } from "vitest";
import type { CallContract } from "../../lib/contracts/define.ts";
import { REGISTERED_CALLS } from "../../server/http/route.ts";
import { fieldsOf as failingFields } from "../../server/http/validate.ts";
import { type Callers, callers } from "../helpers/contract-callers.ts";
import { allContracts, inputsOf, valueAt } from "../helpers/contract-inputs.ts";

/** Writings of a number that are not an id's, and numbers past what a double holds exactly. */
const NOT_IDS = ["0x5", "5.0", "05", " 5", "5 ", "+5", "5e0", "-5", "0", "1.5", "５", "9007199254740993", "1e3"];

/** Fields that name a record by a number; `quote_id` is a random token, checked as text. */
const ID_FIELD = /^(id|on_behalf_of|customer)$|_id$/;
const NOT_NUMERIC_IDS = new Set(["quote_id"]);

let the: Callers;
let contracts: Map<string, CallContract>;
beforeAll(async () => {
  the = await callers();
  contracts = await allContracts();
});

describe("an id", () => {
  test("every id field of every contract refuses what is not a canonical positive integer, naming the field", () => {
    const accepted: string[] = [];
    let walked = 0;
    for (const [key, contract] of contracts) {
      for (const { part, schema, fields } of inputsOf(key, contract)) {
        for (const field of fields) {
          const name = String(field.path.at(-1));
          if (!ID_FIELD.test(name) || NOT_NUMERIC_IDS.has(name)) continue;
          walked++;
          const at = field.path.join(".");
          const failsAt = (value: unknown) => {
            const result = schema.safeParse(valueAt(field.path, value));
            return !result.success && at in failingFields(result.error);
          };
          if (failsAt("5")) accepted.push(`${key} ${part} ${at} refuses "5"`);
          for (const bad of NOT_IDS) {
            if (!failsAt(bad)) accepted.push(`${key} ${part} ${at} takes ${JSON.stringify(bad)}`);
          }
        }
      }
    }
    expect(walked).toBeGreaterThan(10);
    expect(accepted).toEqual([]);
  });

  test("in a path: every served call with an id refuses each non-canonical writing with 422 before it runs", async () => {
    const withIds = [...REGISTERED_CALLS].filter((c) => c.params);
    expect(withIds.length).toBeGreaterThan(8);
    const found: string[] = [];
    for (const contract of withIds) {
      const client = the.callerOf(contract);
      for (const bad of NOT_IDS) {
        const path = contract.path.slice(1).replace(/:\w+/g, encodeURIComponent(bad));
        const res = await client.request(contract.method, path, contract.body ? {} : undefined);
        if (res.status !== 422 || !res.json?.fields?.id) {
          found.push(
            `${contract.method} ${contract.path} with ${JSON.stringify(bad)}: ${res.status} ${res.text.slice(0, 100)}`,
          );
        }
      }
    }
    expect(found).toEqual([]);
  });

  test("in a query: the audit log of customer 05 is refused, of customer 5 read", async () => {
    for (const bad of NOT_IDS) {
      const res = await the.admin.client.get(`console/audit?customer=${encodeURIComponent(bad)}`);
      expect(res.status, bad).toBe(422);
      expect(res.json.fields, bad).toHaveProperty("customer");
    }
    expect((await the.admin.client.get(`console/audit?customer=${the.personal.id}`)).status).toBe(200);
  });

  test("in a body: acting for a customer takes their id as a number or as canonical digits, nothing else", async () => {
    const id = the.open.id;
    const malformed: unknown[] = [...NOT_IDS, 5.5, -5, 0, 9007199254740993, true, [id], { id }];
    for (const bad of malformed) {
      const res = await the.admin.client.post("account/onbehalf", { on_behalf_of: bad });
      expect(res.status, JSON.stringify(bad)).toBe(422);
      expect(res.json.fields, JSON.stringify(bad)).toHaveProperty("on_behalf_of");
    }
    for (const good of [id, String(id)]) {
      const res = await the.admin.client.post("account/onbehalf", { on_behalf_of: good });
      expect(res.status, JSON.stringify(good)).toBe(200);
    }
  });

  test("in a page's address: a customer's console page exists at its canonical id only", async () => {
    const id = the.personal.id;
    expect((await the.admin.client.get(`/console/users/${id}`)).status).toBe(200);
    for (const bad of [`0${id}`, `${id}.0`, `0x${id.toString(16)}`, `+${id}`, "9007199254740993"]) {
      expect((await the.admin.client.get(`/console/users/${encodeURIComponent(bad)}`)).status, bad).toBe(404);
    }
  });
});
