import { beforeAll, describe, expect, test, vi } from "vitest";
import type { CallContract } from "../../lib/contracts/define.ts";
import { PAGES } from "../../routes/pages.tsx";
import { REGISTERED_CALLS } from "../../server/http/route.ts";
import { type ClientResponse, expectStatus, TestClient } from "../helpers/client.ts";
import { createAdministrator } from "../../server/auth/setup.ts";
import { moneyApp, type OpenCustomer, openCustomer } from "../helpers/money.ts";

/**
 * The console does not reveal itself (decision 004, issue 14 finding 8): to anyone but an
 * administrator, every console call and page answers exactly what a path that does not exist
 * answers (status, headers and body), so that nobody can tell a real console address from an
 * unknown one. The lists come from the app itself: every call registered with the console's guards,
 * every page whose guards are the console's; a console call or page added later is checked too.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

type App = Awaited<ReturnType<typeof moneyApp>>["t"];
let t: App;
let customer: OpenCustomer;
let visitor: TestClient;

beforeAll(async () => {
  ({ t } = await moneyApp());
  customer = await openCustomer(t);
  visitor = new TestClient(t);
});

const isConsole = (guards: readonly string[] | undefined) => !!guards?.includes("is-admin");

/** A concrete address of a route: its parameters filled with an id that could exist. */
const concrete = (path: string) => path.replace(/:[a-z_]+/g, "1");

/**
 * An answer with what differs between any two answers taken out: the CSP nonce and the request's
 * id (new for every answer: the X-Request-Id header, a failure's request_id and the error page's
 * reference) and the path asked for, where the answer names it.
 */
function comparable(res: ClientResponse, path: string) {
  const id = res.headers.get("x-request-id");
  const strip = (text: string) =>
    (id ? text.replaceAll(id, "<request-id>") : text)
      .replace(/nonce-[A-Za-z0-9+/=_-]+/g, "nonce-X").replace(/nonce="[^"]*"/g, 'nonce="X"')
      .replaceAll(path, "<path>");
  const headers = [...res.headers.entries()].map(([name, value]) => [name, strip(value)]).sort();
  return { status: res.status, headers, body: strip(res.text) };
}

/** What differs between the two answers, in a few lines. */
function difference(what: string, real: ReturnType<typeof comparable>, none: ReturnType<typeof comparable>) {
  const lines = [what];
  if (real.status !== none.status) lines.push(`  status ${real.status}, unknown path ${none.status}`);
  if (JSON.stringify(real.headers) !== JSON.stringify(none.headers)) {
    lines.push(`  headers ${JSON.stringify(real.headers)}`, `  unknown path ${JSON.stringify(none.headers)}`);
  }
  if (real.body !== none.body) {
    lines.push(`  body ${real.body.slice(0, 300)}`, `  unknown path ${none.body.slice(0, 300)}`);
  }
  return lines.join("\n");
}

const consoleCalls = () => [...REGISTERED_CALLS].filter((call: CallContract) => isConsole(call.guards));

describe("every console call answers a non-administrator exactly as an unknown call", () => {
  test("there are console calls to check", () => {
    expect(consoleCalls().length).toBeGreaterThan(10);
  });

  for (const who of ["a visitor", "a customer"] as const) {
    test(`${who}: the same status, headers and body as /api/no-such-call, for every console call`, async () => {
      const client = who === "a visitor" ? visitor : customer.client;
      const differences: string[] = [];
      for (const call of consoleCalls()) {
        const path = `/api${concrete(call.path)}`;
        const unknown = "/api/console/no-such-call";
        const bodies: [string, unknown, Record<string, string>][] = call.method === "GET"
          ? [["no body", undefined, {}]]
          : [
            ["a JSON body", { id: 1 }, {}],
            ["a body that is not JSON", "id=1", { "content-type": "text/plain" }],
          ];
        for (const [label, body, headers] of bodies) {
          const real = comparable(await client.request(call.method, path, body, headers), path);
          const none = comparable(await client.request(call.method, unknown, body, headers), unknown);
          if (JSON.stringify(real) !== JSON.stringify(none)) {
            differences.push(difference(`${call.method} ${path} with ${label}`, real, none));
          }
        }
      }
      expect(differences, differences.join("\n")).toEqual([]);
    });
  }
});

describe("every console page answers a non-administrator exactly as an unknown page", () => {
  const pages = PAGES.filter((page) => isConsole(page.guards));

  test("there are console pages to check", () => {
    expect(pages.length).toBeGreaterThan(10);
  });

  for (const who of ["a visitor", "a customer"] as const) {
    test(`${who}: the same status, headers and page as /console/no-such-page, for every console page`, async () => {
      const client = who === "a visitor" ? visitor : customer.client;
      const differences: string[] = [];
      for (const page of pages) {
        const path = concrete(page.path);
        const unknown = "/console/no-such-page";
        const real = comparable(await client.get(path), path);
        const none = comparable(await client.get(unknown), unknown);
        if (JSON.stringify(real) !== JSON.stringify(none)) differences.push(difference(`GET ${path}`, real, none));
      }
      expect(differences, differences.join("\n")).toEqual([]);
    });
  }
});

describe("an administrator who has given only the password reaches nothing of the console", () => {
  /** Signed in with the password, the emailed code not yet typed. */
  async function halfSignedIn(): Promise<TestClient> {
    const email = `half-${crypto.randomUUID().slice(0, 8)}@portal.test`;
    const created = await createAdministrator(t.db, email, "admin password 789");
    expect(typeof created, String(created)).toBe("number");
    const client = new TestClient(t);
    expectStatus(await client.post("auth/login", { email, password: "admin password 789" }), 200);
    return client;
  }

  test("every console call is refused with no body, and every console page sends to the second factor", async () => {
    const admin = await halfSignedIn();
    const answered: string[] = [];
    for (const call of consoleCalls()) {
      const path = `/api${concrete(call.path)}`;
      const res = await admin.request(call.method, path, call.method === "GET" ? undefined : { id: 1 }, {});
      if (res.status < 400 || res.status >= 500 || (res.json && "body" in res.json)) {
        answered.push(`${call.method} ${path}: ${res.status}`);
      }
    }
    expect(answered, answered.join("\n")).toEqual([]);
    const pages = PAGES.filter((page) => isConsole(page.guards));
    for (const page of pages) {
      const res = await admin.get(concrete(page.path));
      expect(res.status, page.path).toBe(302);
      expect(res.headers.get("location"), page.path).toBe("/second-factor");
    }
  });
});
