/**
 * A funded customer on a RUNNING portal, over real HTTP: what the crash test (tests/e2e/crash.test.ts)
 * and the conversions benchmark (bench/conversions.ts) both need, with nothing but fetch(), a
 * cookie jar and the server's database file (read only, for the emails a person would receive).
 *
 *   const db = await openDatabase({ url: `file:${path}` });          // the server's file, read beside it
 *   const admin = await createAdminOverHttp(baseUrl, db);            // POST setup, login, emailed code
 *   const customer = await fundedCustomerOverHttp(baseUrl, db, admin, { funds: { GBP: "1000.00" } });
 *   await customer.session.post("account/conversions/quote", {...});
 *
 * A customer is registered, validated with the emailed token, onboarded as Personal with the
 * sandbox identity provider (GREEN) and funded by an administrator's receipt whose reference holds
 * the customer's account_ref (matched at once, DESIGN.md section 4). No vitest import: the bench
 * runs this under plain `deno run`. `startServerOn` restarts a server on an existing data
 * directory (tests/helpers/server.ts always makes a fresh one).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "../../db/client.ts";
import { lastEmailId, waitForEmail } from "./mailbox.ts";
import { freePort, outputOf, type RunningServer } from "./server.ts";

// ---------------------------------------------------------------------------------------------
// A browser-like session over fetch()

// JSON answers are read freely by callers.
// deno-lint-ignore no-explicit-any
export interface HttpAnswer<T = any> {
  status: number;
  /** The parsed JSON body, or undefined when the answer is not JSON. */
  json: T;
  text: string;
  headers: Headers;
}

/**
 * fetch() with a cookie jar: Set-Cookie is kept (by name, whatever the path or Secure flag: the
 * production portal marks its cookies Secure and the tests speak plain HTTP to 127.0.0.1) and sent
 * back; a cookie with Max-Age=0 or an expiry in the past is dropped. A path without a leading "/"
 * is a call under /api/. No Origin header: a non-browser client, which the same-origin check lets
 * through (server/http/security.ts). The base URL can change (a restarted server on another port);
 * the cookies stay.
 */
export class HttpSession {
  private readonly jar = new Map<string, string>();
  /** The last answer, for failure messages. */
  last: HttpAnswer | null = null;

  constructor(public baseUrl: string, private readonly extraHeaders: Record<string, string> = {}) {}

  /** The Cookie header this session sends. */
  cookieHeader(): string {
    return [...this.jar].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  cookie(name: string): string | undefined {
    return this.jar.get(name);
  }

  url(path: string): string {
    return `${this.baseUrl}${path.startsWith("/") ? path : `/api/${path}`}`;
  }

  get(path: string, headers: Record<string, string> = {}) {
    return this.request("GET", path, undefined, headers);
  }
  post(path: string, body: unknown = {}, headers: Record<string, string> = {}) {
    return this.request("POST", path, body, headers);
  }
  put(path: string, body: unknown = {}, headers: Record<string, string> = {}) {
    return this.request("PUT", path, body, headers);
  }
  delete(path: string, body?: unknown, headers: Record<string, string> = {}) {
    return this.request("DELETE", path, body, headers);
  }

  async request(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<HttpAnswer> {
    const sent = new Headers(this.extraHeaders);
    const cookies = this.cookieHeader();
    if (cookies) sent.set("cookie", cookies);
    if (body !== undefined) sent.set("content-type", "application/json");
    for (const [name, value] of Object.entries(headers)) sent.set(name, value);
    const res = await fetch(this.url(path), {
      method,
      headers: sent,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: "manual",
    });
    for (const raw of res.headers.getSetCookie()) this.store(raw);
    const text = await res.text();
    let json: unknown = undefined;
    if ((res.headers.get("content-type") ?? "").includes("json") && text) {
      try {
        json = JSON.parse(text);
      } catch { /* not JSON after all */ }
    }
    const answer: HttpAnswer = { status: res.status, json, text, headers: res.headers };
    this.last = answer;
    return answer;
  }

  private store(raw: string): void {
    const [pair, ...attributes] = raw.split(";");
    const eq = pair.indexOf("=");
    if (eq < 0) return;
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    let expired = value === "";
    for (const attribute of attributes) {
      const [key, v = ""] = attribute.split("=").map((s) => s.trim());
      if (key.toLowerCase() === "max-age" && Number(v) <= 0) expired = true;
      if (key.toLowerCase() === "expires" && Date.parse(v) <= Date.now()) expired = true;
    }
    if (expired) this.jar.delete(name);
    else this.jar.set(name, value);
  }
}

/** The answer when its status is the expected one; otherwise an error naming the call and the answer. */
export function expectAnswer<T = unknown>(what: string, answer: HttpAnswer, status = 200): HttpAnswer<T> {
  if (answer.status !== status) {
    throw new Error(`${what} answered ${answer.status} (expected ${status}): ${answer.text.slice(0, 500)}`);
  }
  return answer as HttpAnswer<T>;
}

// ---------------------------------------------------------------------------------------------
// The mailbox: the server's `emails` table (APP_ENV=test, or no SMTP_URL, keeps every message there)

export { lastEmailId };

/** Polls until an email of `template` to `to`, newer than the mark `after`, is in the table; answers its text as sent. */
export async function waitForMail(
  db: Database,
  to: string,
  template: string,
  after: number,
  timeoutMs = 10_000,
): Promise<string> {
  return (await waitForEmail(db, to, { template, after, timeoutMs })).text;
}

function codeIn(text: string): string {
  const code = /\b\d{6}\b/.exec(text)?.[0];
  if (!code) throw new Error(`No 6-digit code in the email:\n${text}`);
  return code;
}

function tokenIn(text: string): string {
  const link = /https?:\/\/\S+/.exec(text)?.[0];
  const token = link ? new URL(link).searchParams.get("token") : null;
  if (!token) throw new Error(`No link with a token in the email:\n${text}`);
  return token;
}

// ---------------------------------------------------------------------------------------------
// People

let counter = 0;
/** A unique address for this process. */
export function uniqueEmail(prefix: string): string {
  counter++;
  return `${prefix}-${counter}-${crypto.randomUUID().slice(0, 8)}@portal.test`;
}

/** Login, the emailed code, POST challenge: a fully signed-in session. Answers the SessionUser. */
export async function signInOverHttp(session: HttpSession, db: Database, email: string, password: string) {
  const mark = await lastEmailId(db);
  expectAnswer("auth/login", await session.post("auth/login", { email, password }));
  const code = codeIn(await waitForMail(db, email, "second-factor-code", mark));
  const challenge = expectAnswer<{ body: { id: number } }>(
    "challenge",
    await session.post("challenge", { token: code }),
  );
  return challenge.json.body;
}

export interface HttpAdmin {
  session: HttpSession;
  id: number;
  email: string;
  password: string;
}

/** The first administrator: POST setup (only while there is none), then signed in with the emailed code. */
export async function createAdminOverHttp(
  baseUrl: string,
  db: Database,
  options: { email?: string; password?: string } = {},
): Promise<HttpAdmin> {
  const email = (options.email ?? uniqueEmail("admin")).toLowerCase();
  const password = options.password ?? "admin password 123";
  const session = new HttpSession(baseUrl);
  expectAnswer("setup", await session.post("setup", { email, password }));
  const user = await signInOverHttp(session, db, email, password);
  return { session, id: user.id, email, password };
}

/** A Personal profile that passes the server's checks and raises no compliance flag (the account opens at once). */
export function personalProfile(first = "Ada", last = "Lovelace"): Record<string, unknown> {
  return {
    first,
    last,
    dob: "1990-05-15",
    phone: "+44 20 7946 0000",
    identity: "123456789",
    address: { line1: "1 Test Street", line2: "", city: "London", region: "", postcode: "SW1A 1AA", country: "GB" },
    employment: "Employed",
    position: "Engineer",
    expected: "20000",
    fundSource: "Salary",
    source: ["Salary"],
    purpose: ["Family support"],
    discovery: "",
    personal: true,
    agency: false,
    agency_of: "",
    public: false,
    denial: false,
  };
}

export interface HttpCustomer {
  session: HttpSession;
  id: number;
  email: string;
  password: string;
  accountRef: string;
}

/**
 * Someone who registered and followed the emailed link (which also passes the second factor in
 * this session): next comes their profile (/register-personal or /register-business).
 */
export async function registerOverHttp(
  baseUrl: string,
  db: Database,
  options: { type: "Personal" | "Business"; email?: string; password?: string },
): Promise<{ session: HttpSession; id: number; email: string; password: string }> {
  const email = (options.email ?? uniqueEmail("customer")).toLowerCase();
  const password = options.password ?? "customer password 123";
  const session = new HttpSession(baseUrl);
  const mark = await lastEmailId(db);
  expectAnswer("auth/register", await session.post("auth/register", { email, password, type: options.type }));
  const token = tokenIn(await waitForMail(db, email, "email-validation", mark));
  const validated = expectAnswer<{ body: { id: number } }>(
    "validation/validate",
    await session.post("validation/validate", { token }),
  );
  return { session, id: validated.json.body.id, email, password };
}

/**
 * A Personal customer with an open account: register, the emailed validation token (which also
 * passes the second factor in this session), the profile, the sandbox identity check answered
 * GREEN, confirm.
 */
export async function onboardCustomerOverHttp(
  baseUrl: string,
  db: Database,
  options: { email?: string; password?: string; first?: string; last?: string } = {},
): Promise<HttpCustomer> {
  const { session, id, email, password } = await registerOverHttp(baseUrl, db, { ...options, type: "Personal" });
  expectAnswer("account/profile", await session.post("account/profile", personalProfile(options.first, options.last)));
  expectAnswer("sumsub/sandbox", await session.post("sumsub/sandbox", { answer: "GREEN" }));
  const confirmed = expectAnswer<{ body: { account: boolean; account_ref: string | null } }>(
    "sumsub/confirm",
    await session.get("sumsub/confirm"),
  );
  const { account, account_ref } = confirmed.json.body;
  if (!account || !account_ref) throw new Error(`The account did not open: ${confirmed.text.slice(0, 500)}`);
  return { session, id, email, password, accountRef: account_ref };
}

export interface Receipt {
  id: number;
  amount: string;
  currency: string;
  status: "matched" | "unmatched" | "allocated";
  account_ref: string | null;
}

/** An administrator records money received with the customer's account_ref in its reference: credited at once. */
export async function fundOverHttp(
  admin: HttpAdmin,
  accountRef: string,
  currency: string,
  amount: string,
): Promise<Receipt> {
  const answer = expectAnswer<{ body: Receipt }>(
    "console/receipts",
    await admin.session.post("console/receipts", {
      amount,
      currency,
      payer_name: "Funding for tests",
      reference: `Top-up ${accountRef}`,
      received_at: new Date().toISOString().slice(0, 10),
    }),
    201,
  );
  const receipt = answer.json.body;
  if (receipt.status !== "matched" || receipt.account_ref !== accountRef) {
    throw new Error(`The receipt did not credit ${accountRef}: ${answer.text.slice(0, 500)}`);
  }
  return receipt;
}

/** onboardCustomerOverHttp, then one receipt per currency in `funds` ({ GBP: "1000.00" }). */
export async function fundedCustomerOverHttp(
  baseUrl: string,
  db: Database,
  admin: HttpAdmin,
  options: { funds: Record<string, string>; email?: string; password?: string; first?: string; last?: string },
): Promise<HttpCustomer & { receipts: Receipt[] }> {
  const customer = await onboardCustomerOverHttp(baseUrl, db, options);
  const receipts: Receipt[] = [];
  for (const [currency, amount] of Object.entries(options.funds)) {
    receipts.push(await fundOverHttp(admin, customer.accountRef, currency, amount));
  }
  return { ...customer, receipts };
}

// ---------------------------------------------------------------------------------------------
// Restarting a server on the same database

/**
 * tests/helpers/server.ts's startServer, on an existing data directory (its portal.db is reused,
 * after a crash too): a new process on a free port, answered once GET /api/health is 200.
 * stop() ends the process and leaves the directory; the caller removes it.
 */
export async function startServerOn(
  dataDir: string,
  script = "tests/e2e/fixture-server.tsx",
  env: Record<string, string> = {},
  timeoutMs = 30_000,
): Promise<RunningServer> {
  mkdirSync(dataDir, { recursive: true });
  const port = await freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script],
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: `file:${join(dataDir, "portal.db")}`,
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      APP_ENV: "test",
      NODE_ENV: "production",
      ...env,
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = outputOf(child);
  let exited = false;
  child.status.then(() => (exited = true));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited) throw new Error(`The server exited before it was healthy. Its output:\n${output()}`);
    try {
      const res = await fetch(`${url}/api/health`);
      await res.body?.cancel();
      if (res.ok) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
      await child.status;
      throw new Error(`The server did not become healthy in ${timeoutMs / 1000} s. Its output:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    dataDir,
    process: child,
    output,
    outputAtEnd: () => output.atEnd,
    async stop() {
      if (!exited) {
        try {
          child.kill("SIGTERM");
        } catch { /* already gone */ }
      }
      await child.status;
    },
  };
}
