/**
 * Every request's body is held to what its call takes, and refused with 413 before it is read in
 * full (issue 14, finding 3; decision 024): a 10 MB anonymous registration used to be read, parsed
 * and create a user. Here in the app, with bodies whose size the Content-Length header states
 * truly, falsely or not at all; tests/integration/body-limits-server.test.ts measures a running
 * server's memory and its sockets.
 */
import { count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, test } from "vitest";
import { users } from "../../db/schema.ts";
import { DEFAULT_BODY_LIMIT } from "../../lib/contracts/define.ts";
import { saveProfile } from "../../lib/contracts/onboarding.ts";
import { register } from "../../lib/contracts/auth.ts";
import { sumsubWebhook } from "../../lib/contracts/onboarding.ts";
import { REGISTERED_CALLS } from "../../server/http/route.ts";
import { profileSchemas } from "../../server/profile/schema.ts";
import { uploadMigration } from "../../lib/contracts/migrations.ts";
import { importStatement } from "../../lib/contracts/console-money.ts";
import { type Admin, businessProfile, createAdmin, signinApp, uniqueEmail } from "../helpers/client.ts";
import { openCustomer } from "../helpers/money.ts";

type App = Awaited<ReturnType<typeof signinApp>>;
let t: App;
beforeAll(async () => {
  t = await signinApp();
});

const MB = 1024 * 1024;
const TOO_LARGE = `The request is too large: at most 16 KB.`;
const encoder = new TextEncoder();

/** A body of `size` bytes made on demand: `head`, then spaces-free padding, then `tail`. */
interface Body {
  size: number;
  /** The bytes from `offset`, at most `length` of them. */
  slice(offset: number, length: number): Uint8Array<ArrayBuffer>;
}

const X = "x".charCodeAt(0);

/** A registration of `size` bytes: a real one, padded in its attribution's referrer. */
function registration(email: string, size: number): Body {
  const head = encoder.encode(
    JSON.stringify({ email, password: "correct horse battery", type: "Personal", attribution: { referrer: "" } })
      .replace(`"referrer":""}}`, `"referrer":"`),
  );
  const tail = encoder.encode(`"}}`);
  const padding = Math.max(0, size - head.length - tail.length);
  return {
    size: head.length + padding + tail.length,
    slice(offset, length) {
      const out = new Uint8Array(Math.max(0, Math.min(length, this.size - offset)));
      for (let i = 0; i < out.length; i++) {
        const at = offset + i;
        out[i] = at < head.length ? head[at] : at < head.length + padding ? X : tail[at - head.length - padding];
      }
      return out;
    },
  };
}

/** Spaces: JSON's white space, so the body is JSON whatever its size. */
const spaces = (size: number): Body => ({
  size,
  slice: (offset, length) => new Uint8Array(Math.max(0, Math.min(length, size - offset))).fill(0x20),
});

const whole = (body: Body) => body.slice(0, body.size);

/**
 * A body that streams in 1 KB chunks as they are pulled, and counts what was pulled. Past
 * `failAfter` bytes it errors instead: a server that read that far would fail on it.
 */
function streamed(body: Body, failAfter = Infinity) {
  const pulled = { bytes: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled.bytes >= body.size) return controller.close();
      if (pulled.bytes >= failAfter) return controller.error(new Error("The body was read past the limit."));
      const chunk = body.slice(pulled.bytes, 1024);
      pulled.bytes += chunk.length;
      controller.enqueue(chunk);
    },
  }, { highWaterMark: 0 });
  return { stream, pulled };
}

function post(path: string, body: BodyInit, headers: Record<string, string> = {}) {
  return t.app.request(path, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...headers },
    // A streamed request body is sent as it is read (fetch's half duplex).
    ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
  } as RequestInit);
}

async function usersNamed(email: string): Promise<number> {
  const [{ n }] = await t.db.select({ n: count() }).from(users).where(eq(users.username, email));
  return n;
}

async function expectTooLarge(res: Response, message = TOO_LARGE) {
  expect(res.status).toBe(413);
  // The rest of the body is never read: the connection is not kept for another request.
  expect(res.headers.get("connection")).toBe("close");
  expect(await res.json()).toMatchObject({ error: message });
}

describe("a 10 MB registration", () => {
  test("with a true Content-Length: 413 before a byte is read, and no user", async () => {
    const email = uniqueEmail("large");
    const body = registration(email, 10 * MB);
    const { stream, pulled } = streamed(body);
    await expectTooLarge(await post("/api/auth/register", stream, { "content-length": String(body.size) }));
    expect(pulled.bytes).toBe(0);
    expect(await usersNamed(email)).toBe(0);
  });

  test("with no Content-Length (chunked): 413 once the limit is passed, read no further, and no user", async () => {
    const email = uniqueEmail("chunked");
    const { stream, pulled } = streamed(registration(email, 10 * MB), 64 * 1024);
    await expectTooLarge(await post("/api/auth/register", stream));
    expect(pulled.bytes).toBeLessThanOrEqual(DEFAULT_BODY_LIMIT + 2 * 1024);
    expect(await usersNamed(email)).toBe(0);
  });

  test("with a Content-Length that understates it: the bytes are counted, not the header", async () => {
    const email = uniqueEmail("understated");
    const { stream, pulled } = streamed(registration(email, 10 * MB), 64 * 1024);
    await expectTooLarge(await post("/api/auth/register", stream, { "content-length": "200" }));
    expect(pulled.bytes).toBeLessThanOrEqual(DEFAULT_BODY_LIMIT + 2 * 1024);
    expect(await usersNamed(email)).toBe(0);
  });

  test("with an Idempotency-Key: refused before the key's layer reads the body to hash it", async () => {
    const email = uniqueEmail("keyed");
    const { stream, pulled } = streamed(registration(email, 10 * MB), 64 * 1024);
    await expectTooLarge(await post("/api/auth/register", stream, { "idempotency-key": crypto.randomUUID() }));
    expect(pulled.bytes).toBeLessThanOrEqual(DEFAULT_BODY_LIMIT + 2 * 1024);
  });

  test("20 at once: each is 413, none is read past the limit, and no user is made", async () => {
    const sent = Array.from({ length: 20 }, () => {
      const email = uniqueEmail("parallel");
      return { email, ...streamed(registration(email, 10 * MB), 64 * 1024) };
    });
    const answers = await Promise.all(sent.map(({ stream }) => post("/api/auth/register", stream)));
    for (const res of answers) await expectTooLarge(res);
    for (const { email, pulled } of sent) {
      expect(pulled.bytes).toBeLessThanOrEqual(DEFAULT_BODY_LIMIT + 2 * 1024);
      expect(await usersNamed(email)).toBe(0);
    }
  });

  test("a registration at the limit is read and answered as usual", async () => {
    const email = uniqueEmail("fits");
    const body = whole(registration(email, DEFAULT_BODY_LIMIT - 1024));
    // Its attribution is longer than the attribution allows: refused for that, not for its size.
    const res = await post("/api/auth/register", body);
    expect(res.status).toBe(422);
  });
});

describe("every call has a limit that fits it", () => {
  test("every call that takes a body refuses one past its limit with 413, naming the limit", async () => {
    const found: string[] = [];
    for (const call of REGISTERED_CALLS) {
      if (call.method === "GET") continue;
      const limit = call.bodyLimit ?? DEFAULT_BODY_LIMIT;
      const path = `/api${call.path.replace(/:\w+/g, "1")}`;
      const { stream, pulled } = streamed(spaces(limit + 64 * 1024), limit + 8 * 1024);
      const res = await t.app.request(path, {
        method: call.method,
        body: stream,
        headers: { "content-type": "application/json" },
        duplex: "half",
      } as RequestInit);
      const answer = await res.json().catch(() => null);
      if (res.status !== 413 || !String(answer?.error).includes("The request is too large")) {
        found.push(`${call.method} ${call.path}: ${res.status} ${JSON.stringify(answer)}`);
      }
      if (pulled.bytes > limit + 2 * 1024) found.push(`${call.method} ${call.path}: read ${pulled.bytes} bytes`);
    }
    expect(found).toEqual([]);
  });

  test("the signed identity webhook too, before its signature is checked", async () => {
    const limit = sumsubWebhook.bodyLimit ?? DEFAULT_BODY_LIMIT;
    const res = await post("/api/sumsub/webhook", whole(spaces(limit + 1)), {
      "x-payload-digest": "0".repeat(64),
    });
    expect(res.status).toBe(413);
  });

  test("a page's form post and an unknown path too", async () => {
    for (const path of ["/logout", "/api/no-such-call"]) {
      const { stream } = streamed(spaces(MB), 64 * 1024);
      const res = await t.app.request(path, { method: "POST", body: stream, duplex: "half" } as RequestInit);
      expect(res.status, path).toBe(413);
    }
  });

  test("the largest profile a person can save fits the profile's limit, in any script", () => {
    // Every text at its longest, each character four bytes in UTF-8 (an emoji or a rare CJK ideograph).
    const wide = (n: number) => "𠀀".repeat(n);
    const list = (n: number) => Array.from({ length: 20 }, () => wide(n));
    const largest = businessProfile({
      name: wide(200),
      number: wide(30),
      address: {
        line1: wide(200),
        line2: wide(200),
        city: wide(100),
        region: wide(100),
        postcode: "SW1A 1AA",
        country: "GB",
      },
      nature: wide(500),
      first: wide(100),
      last: wide(100),
      ubos: list(200),
      directors: list(200),
      purpose: list(200),
      discovery: wide(200),
      accountManager: wide(100),
    });
    expect(profileSchemas(new Date("2026-11-22")).businessProfileSchema.safeParse(largest).success).toBe(true);
    expect(encoder.encode(JSON.stringify(largest)).length).toBeLessThanOrEqual(saveProfile.bodyLimit!);
  });

  test("the largest registration fits the usual limit", () => {
    const longest = (n: number) => "x".repeat(n);
    const largest = {
      email: `${longest(64)}@${longest(180)}.example`,
      password: "😀".repeat(128),
      type: "Business",
      referral_code: longest(64),
      attribution: Object.fromEntries(
        ["utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "referrer", "landing_path"]
          .map((key) => [key, "😀".repeat(500)]),
      ),
    };
    expect(register.body.safeParse(largest).success).toBe(true);
    expect(encoder.encode(JSON.stringify(largest)).length).toBeLessThanOrEqual(
      DEFAULT_BODY_LIMIT,
    );
    expect("bodyLimit" in register).toBe(false);
  });
});

describe("a console call's 5 MB is an administrator's only (decision 074)", () => {
  const CONSOLE_UPLOADS = [
    { path: "/api/console/receipts/import", type: "application/xml", limit: importStatement.bodyLimit! },
    { path: "/api/console/migrations?dry_run=true", type: "text/csv", limit: uploadMigration.bodyLimit! },
  ];
  let admin: Admin;
  beforeAll(async () => {
    admin = await createAdmin(t);
  });

  test("the uploads take more than the usual limit", () => {
    for (const upload of CONSOLE_UPLOADS) expect(upload.limit).toBe(5 * MB);
  });

  test("a visitor's 1 MB is refused at the usual 16 KB, not read further, as for a path that does not exist", async () => {
    for (const { path, type } of CONSOLE_UPLOADS) {
      const { stream, pulled } = streamed(spaces(MB), 64 * 1024);
      const res = await post(path, stream, { "content-type": type });
      await expectTooLarge(res);
      expect(pulled.bytes, path).toBeLessThanOrEqual(DEFAULT_BODY_LIMIT + 2 * 1024);
    }
    const unknown = await post("/api/console/no-such-call", whole(spaces(MB)), { "content-type": "text/csv" });
    await expectTooLarge(unknown);
  });

  test("a customer's too: 413 at the usual 16 KB", async () => {
    const customer = await openCustomer(t);
    for (const { path, type } of CONSOLE_UPLOADS) {
      const res = await customer.client.post(path.slice("/api/".length), whole(spaces(MB)), { "content-type": type });
      expect(res.status, path).toBe(413);
      expect(res.json).toMatchObject({ error: TOO_LARGE });
    }
  });

  test("an administrator's 1 MB upload is read and answered by the call (not 413)", async () => {
    for (const { path, type } of CONSOLE_UPLOADS) {
      const res = await admin.client.post(path.slice("/api/".length), whole(spaces(MB)), { "content-type": type });
      // Spaces are neither a bank statement nor a CSV of customers: refused for that, not for their size.
      expect(res.status, `${path}: ${res.text.slice(0, 200)}`).toBe(422);
    }
  });
});
