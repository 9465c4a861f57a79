/**
 * A call that takes a body takes JSON, said so: `Content-Type: application/json` (UTF-8 if a
 * charset is named), else 415 with words that say what to send, and nothing happens (issue 14,
 * finding 7; decision 024). A body that says it is JSON and is not is a 400 in the same words'
 * spirit, never the framework's "Malformed JSON in request body".
 */
import { count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, test } from "vitest";
import { users } from "../../db/schema.ts";
import type { CallContract } from "../../lib/contracts/define.ts";
import { REGISTERED_CALLS } from "../../server/http/route.ts";
import { NOT_JSON } from "../../server/http/validate.ts";
import { type Callers, callers } from "../helpers/contract-callers.ts";
import { TestClient, uniqueEmail } from "../helpers/client.ts";

let the: Callers;
beforeAll(async () => {
  the = await callers();
});

const NOT_JSON_TYPES = [
  null,
  "text/plain",
  "text/plain; charset=utf-8",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/json; charset=iso-8859-1",
  "application/jsonp",
];

/** Every served call that reads a JSON body. */
const withBodies = () => [...REGISTERED_CALLS].filter((c) => c.body || c.signedBody);

function send(contract: CallContract, body: BodyInit, contentType: string | null) {
  return the.callerOf(contract).request(contract.method, the.pathOf(contract), body, { "content-type": contentType });
}

describe("a JSON call", () => {
  test("refuses every body not declared as JSON with 415, saying what to send", async () => {
    const calls = withBodies();
    expect(calls.length).toBeGreaterThan(15);
    const found: string[] = [];
    for (const contract of calls) {
      for (const type of NOT_JSON_TYPES) {
        const res = await send(contract, JSON.stringify({}), type);
        if (res.status !== 415 || res.json?.error !== NOT_JSON) {
          found.push(`${contract.method} ${contract.path} as ${type}: ${res.status} ${res.text.slice(0, 120)}`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  test("a registration sent as text/plain, however valid its JSON, registers nobody", async () => {
    const email = uniqueEmail("plain");
    const body = JSON.stringify({ email, password: "correct horse battery", type: "Personal" });
    const res = await new TestClient(the.t).request("POST", "auth/register", body, { "content-type": "text/plain" });
    expect(res.status).toBe(415);
    const [{ n }] = await the.t.db.select({ n: count() }).from(users).where(eq(users.username, email));
    expect(n).toBe(0);
  });

  test("takes application/json with or without charset=utf-8, in any case", async () => {
    for (const type of ["application/json", "application/json; charset=utf-8", "Application/JSON;Charset=UTF-8"]) {
      const email = uniqueEmail("typed");
      const body = JSON.stringify({ email, password: "correct horse battery", type: "Personal" });
      const res = await new TestClient(the.t).request("POST", "auth/register", body, { "content-type": type });
      expect(res.status, type).toBe(200);
    }
  });

  test("answers a body that is not JSON, or not UTF-8, with 400 in words a developer can act on", async () => {
    const found: string[] = [];
    const broken: BodyInit[] = ["{", "", "{'single': 'quotes'}", new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d])];
    for (const contract of withBodies().filter((c) => c.body)) {
      for (const body of broken) {
        const res = await send(contract, body, "application/json");
        if (res.status !== 400 || !String(res.json?.error).startsWith("The request body is not valid JSON")) {
          found.push(`${contract.method} ${contract.path}: ${res.status} ${res.text.slice(0, 120)}`);
        }
      }
    }
    expect(found).toEqual([]);
  });
});
