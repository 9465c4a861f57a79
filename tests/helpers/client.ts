import type { Hono } from "hono";
import { expect } from "vitest";
import type { Database } from "../../db/client.ts";
import { createAdministrator } from "../../server/auth/setup.ts";
import { settled } from "../../server/background.ts";
import type { AppEnv } from "../../server/env.ts";
import { testApp } from "./app.ts";
import { codeIn, latestEmail, linkIn } from "./mailbox.ts";

/**
 * A tiny browser over `app.request`: a cookie jar (Set-Cookie is read and sent back, a cookie
 * set with Max-Age=0 or an expiry in the past is deleted), `Origin: http://localhost` and a JSON
 * body on POST/PUT/DELETE, JSON answers read for the test.
 *
 *   const client = new TestClient(t.app);            // or new TestClient(t) to keep the database
 *   const res = await client.post("auth/login", { email, password });
 *   res.status; res.json.body; res.headers.get("set-cookie");
 *
 * A path without a leading "/" is a call under /api/ ("auth/login" is "/api/auth/login").
 * Cookie lifetimes are measured on the client's own clock (real time unless `now` is given), the
 * way a browser does: moving the server's test clock does not make the client drop a cookie, so
 * the server alone must refuse a session that has run out.
 */

export interface ClientOptions {
  /** Where the jar's clock reads the time for Max-Age/Expires; real time by default. */
  now?: () => number;
  /** The Origin header of writes; null sends none (a server-to-server caller such as a webhook). */
  origin?: string | null;
  /** The client's address (X-Forwarded-For; read by the app only with TRUST_PROXY=1). */
  address?: string | null;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** The database, for helpers that read the client's mailbox. */
  db?: Database;
}

export interface StoredCookie {
  name: string;
  value: string;
  path: string;
  httpOnly: boolean;
  secure: boolean;
  sameSite: string | null;
  /** Absolute expiry on the client's clock, or null for a session cookie. */
  expiresAt: number | null;
}

// JSON answers are read freely in tests.
// deno-lint-ignore no-explicit-any
export interface ClientResponse<T = any> {
  status: number;
  /** The parsed JSON body (undefined when the answer is not JSON). */
  json: T;
  headers: Headers;
  /** The raw body text. */
  text: string;
  /** The Set-Cookie headers of this answer, each parsed. */
  setCookies: ParsedSetCookie[];
}

export interface ParsedSetCookie {
  name: string;
  value: string;
  /** Attribute names lower-cased, e.g. { path: "/", httponly: "", "max-age": "43200" }. */
  attributes: Record<string, string>;
  raw: string;
}

/** Parses one Set-Cookie header value. */
export function parseSetCookie(raw: string): ParsedSetCookie {
  const [pair, ...parts] = raw.split(";");
  const eq = pair.indexOf("=");
  const name = (eq < 0 ? pair : pair.slice(0, eq)).trim();
  let value = eq < 0 ? "" : pair.slice(eq + 1).trim();
  try {
    value = decodeURIComponent(value);
  } catch { /* keep as sent */ }
  const attributes: Record<string, string> = {};
  for (const part of parts) {
    const i = part.indexOf("=");
    const key = (i < 0 ? part : part.slice(0, i)).trim().toLowerCase();
    if (!key) continue;
    attributes[key] = i < 0 ? "" : part.slice(i + 1).trim();
  }
  return { name, value, attributes, raw };
}

let addresses = 0;
/** A fresh client address per client, so per-address limits of one test do not reach another. */
function nextAddress(): string {
  addresses++;
  return `198.51.${Math.floor(addresses / 250) % 250}.${(addresses % 250) + 1}`;
}

type AppLike = Hono<AppEnv> | { app: Hono<AppEnv>; db?: Database };

export class TestClient {
  readonly app: Hono<AppEnv>;
  readonly db: Database | undefined;
  readonly address: string | null;
  private readonly jar = new Map<string, StoredCookie>();
  private readonly clock: () => number;
  private readonly origin: string | null;
  private readonly extraHeaders: Record<string, string>;
  /** The last answer, for failure messages. */
  last: ClientResponse | null = null;

  constructor(target: AppLike, options: ClientOptions = {}) {
    const isApp = typeof (target as Hono<AppEnv>).request === "function" && !("app" in target);
    this.app = isApp ? (target as Hono<AppEnv>) : (target as { app: Hono<AppEnv> }).app;
    this.db = options.db ?? (isApp ? undefined : (target as { db?: Database }).db);
    this.clock = options.now ?? (() => Date.now());
    this.origin = options.origin === undefined ? "http://localhost" : options.origin;
    this.address = options.address === undefined ? nextAddress() : options.address;
    this.extraHeaders = options.headers ?? {};
  }

  /** A second browser with a copy of this one's cookies (to replay an old cookie later). */
  clone(options: ClientOptions = {}): TestClient {
    const copy = new TestClient(
      { app: this.app, db: this.db },
      { now: this.clock, origin: this.origin, address: this.address, headers: this.extraHeaders, ...options },
    );
    for (const [name, cookie] of this.jar) copy.jar.set(name, { ...cookie });
    return copy;
  }

  /** The same browser (its cookies) talking to another instance of the portal on the same database. */
  to(app: Hono<AppEnv>): TestClient {
    const copy = new TestClient(
      { app, db: this.db },
      { now: this.clock, origin: this.origin, address: this.address, headers: this.extraHeaders },
    );
    for (const [name, cookie] of this.jar) copy.jar.set(name, { ...cookie });
    return copy;
  }

  /** The value of a live cookie, or undefined. */
  cookie(name: string): string | undefined {
    return this.cookieDetails(name)?.value;
  }

  /** A live cookie with its attributes, or undefined. */
  cookieDetails(name: string): StoredCookie | undefined {
    const cookie = this.jar.get(name);
    if (!cookie) return undefined;
    if (cookie.expiresAt !== null && cookie.expiresAt <= this.clock()) {
      this.jar.delete(name);
      return undefined;
    }
    return cookie;
  }

  /** Sets (or with null, removes) a cookie by hand, as if a browser had kept an old one. */
  setCookie(name: string, value: string | null): void {
    if (value === null) this.jar.delete(name);
    else {this.jar.set(name, {
        name,
        value,
        path: "/",
        httpOnly: true,
        secure: false,
        sameSite: "Lax",
        expiresAt: null,
      });}
  }

  clearCookies(): void {
    this.jar.clear();
  }

  get(path: string, headers: Record<string, string> = {}) {
    return this.request("GET", path, undefined, headers);
  }
  post(path: string, body?: unknown, headers: Record<string, string> = {}) {
    return this.request("POST", path, body ?? {}, headers);
  }
  put(path: string, body?: unknown, headers: Record<string, string> = {}) {
    return this.request("PUT", path, body ?? {}, headers);
  }
  delete(path: string, body?: unknown, headers: Record<string, string> = {}) {
    return this.request("DELETE", path, body, headers);
  }

  /** One request; a string body is sent exactly as given (for signed webhooks). A null header is not sent. */
  /** GET a file (a statement's PDF) as bytes, with this browser's cookies: the JSON client would read it as text. */
  async download(path: string): Promise<{ status: number; headers: Headers; bytes: Uint8Array }> {
    const url = new URL(path.startsWith("/") ? path : `/api/${path}`, "http://localhost");
    const sent = new Headers(this.extraHeaders);
    if (this.address) sent.set("x-forwarded-for", this.address);
    const cookieHeader = this.cookieHeader(url.pathname);
    if (cookieHeader) sent.set("cookie", cookieHeader);
    const res = await this.app.request(url.toString(), { method: "GET", headers: sent });
    return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
  }

  async request(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string | null> = {},
  ): Promise<ClientResponse> {
    const url = new URL(path.startsWith("/") || /^https?:/.test(path) ? path : `/api/${path}`, "http://localhost");
    const sent = new Headers(this.extraHeaders);
    if (this.address) sent.set("x-forwarded-for", this.address);
    const write = method !== "GET" && method !== "HEAD";
    if (write && this.origin) sent.set("origin", this.origin);
    if (body !== undefined) sent.set("content-type", "application/json");
    const cookieHeader = this.cookieHeader(url.pathname);
    if (cookieHeader) sent.set("cookie", cookieHeader);
    for (const [name, value] of Object.entries(headers)) value === null ? sent.delete(name) : sent.set(name, value);

    const res = await this.app.request(url.toString(), {
      method,
      headers: sent,
      body: body === undefined
        ? undefined
        : typeof body === "string" || body instanceof Uint8Array
        ? body as BodyInit
        : JSON.stringify(body),
    });
    // What the server does after answering (an email) is done before the test reads on, as a
    // person reads their mail a moment after the page answered.
    await settled();
    const setCookies = res.headers.getSetCookie().map(parseSetCookie);
    for (const cookie of setCookies) this.store(cookie);
    const text = await res.text();
    let json: unknown = undefined;
    if ((res.headers.get("content-type") ?? "").includes("json") && text) {
      try {
        json = JSON.parse(text);
      } catch { /* not JSON after all */ }
    }
    const answer: ClientResponse = { status: res.status, json, headers: res.headers, text, setCookies };
    this.last = answer;
    return answer;
  }

  private cookieHeader(pathname: string): string {
    const out: string[] = [];
    for (const name of [...this.jar.keys()]) {
      const cookie = this.cookieDetails(name);
      if (!cookie) continue;
      const path = cookie.path || "/";
      if (pathname === path || pathname.startsWith(path.endsWith("/") ? path : `${path}/`)) {
        out.push(`${name}=${cookie.value}`);
      }
    }
    return out.join("; ");
  }

  private store(cookie: ParsedSetCookie): void {
    const now = this.clock();
    const { attributes } = cookie;
    let expiresAt: number | null = null;
    if ("max-age" in attributes) {
      const seconds = Number(attributes["max-age"]);
      expiresAt = Number.isFinite(seconds) ? now + seconds * 1000 : null;
    } else if ("expires" in attributes) {
      const at = Date.parse(attributes.expires);
      expiresAt = Number.isNaN(at) ? null : at;
    }
    if (expiresAt !== null && expiresAt <= now) {
      this.jar.delete(cookie.name);
      return;
    }
    this.jar.set(cookie.name, {
      name: cookie.name,
      value: cookie.value,
      path: attributes.path || "/",
      httpOnly: "httponly" in attributes,
      secure: "secure" in attributes,
      sameSite: attributes.samesite ?? null,
      expiresAt,
    });
  }
}

// ---------------------------------------------------------------------------------------------
// A test clock

/** A clock the app's services read (testApp({ now: clock.now })) that a test moves by hand. */
export class TestClock {
  constructor(private at: number = Date.UTC(2026, 2, 2, 9, 0, 0)) {}
  readonly now = (): number => this.at;
  advance(ms: number): number {
    this.at += ms;
    return this.at;
  }
  set(ms: number): void {
    this.at = ms;
  }
  /** Today's date in UTC, YYYY-MM-DD. */
  today(): string {
    return new Date(this.at).toISOString().slice(0, 10);
  }
}

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;

// ---------------------------------------------------------------------------------------------
// Profile fixtures (server/profile/schema.ts and its README)

/** A complete, valid Personal profile with no flag raised (the account opens at once). */
export function personalProfile(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    first: "Ada",
    last: "Lovelace",
    dob: "1990-05-17",
    phone: "+44 7911 123456",
    identity: "Passport 123456789",
    address: { line1: "10 Downing Street", line2: "", city: "London", region: "", postcode: "SW1A 2AA", country: "GB" },
    employment: "Employed",
    position: "Engineer",
    expected: "50000",
    fundSource: "Salary",
    source: ["Salary"],
    purpose: ["Family support"],
    personal: true,
    agency: false,
    agency_of: "",
    public: false,
    denial: false,
    discovery: "",
    accountManager: "",
    ...overrides,
  };
}

/** A complete, valid Business profile. */
export function businessProfile(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: "Acme Trading Ltd",
    number: "12345678",
    incorporation: "2015-03-01",
    country: "GB",
    address: {
      line1: "1 High Street",
      line2: "Suite 4",
      city: "Leeds",
      region: "West Yorkshire",
      postcode: "LS1 1AA",
      country: "GB",
    },
    nature: "Import and export of machine parts",
    turnover: "1000000",
    website: "https://acme.example.com",
    first: "Grace",
    last: "Hopper",
    dob: "1980-12-09",
    phone: "+1 415 555 2671",
    ubos: ["Grace Hopper"],
    directors: ["Grace Hopper"],
    purpose: ["Paying suppliers"],
    discovery: "",
    accountManager: "",
    ...overrides,
  };
}

// ---------------------------------------------------------------------------------------------
// Factories that drive the real calls

export interface TestAppLike {
  app: Hono<AppEnv>;
  db: Database;
}

export const PASSWORD = "correct horse battery";

let emails = 0;
/** A unique address for this run. */
export function uniqueEmail(prefix = "user"): string {
  emails++;
  return `${prefix}-${emails}-${crypto.randomUUID().slice(0, 8)}@example.com`;
}

/** Fails with the answer in the message when the status is not the expected one. */
export function expectStatus(res: ClientResponse, status: number): void {
  expect(res.status, `${res.status} ${res.text.slice(0, 500)}`).toBe(status);
}

/**
 * A wrong code or link refused on the page where it was typed (decision 039): a 422 naming the
 * token, saying what was wrong and how many tries this address has left before a 15-minute block.
 */
export function expectRefusedWithTriesLeft(res: ClientResponse, what: string, left: number): void {
  expectStatus(res, 422);
  const tries = left === 0
    ? "That was the last try for now: try again in 15 minutes."
    : `${left} ${left === 1 ? "try" : "tries"} left.`;
  expect(res.json.error).toBe(`${what} ${tries}`);
  expect(res.json.fields).toEqual({ token: `${what} ${tries}` });
  expect(res.json.redirect).toBeUndefined();
}

/** The newest email to an address, or a failure naming the address. */
/**
 * A moment as customers read it, worked out here on its own: "5 Dec 2026, 09:05 UTC" (the format
 * of lib/moment.ts), so that a test compares the text shown with what it should be.
 */
export function inUtcWords(at: Date): string {
  const month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][at.getUTCMonth()];
  const two = (n: number) => String(n).padStart(2, "0");
  return `${at.getUTCDate()} ${month} ${at.getUTCFullYear()}, ${two(at.getUTCHours())}:${two(at.getUTCMinutes())} UTC`;
}

export async function mailTo(db: Database, to: string) {
  const email = await latestEmail(db, to);
  if (!email) throw new Error(`No email to ${to}`);
  return email;
}

/** The token of the newest validation or reset link emailed to an address. */
export async function emailedToken(
  db: Database,
  to: string,
  template?: string,
): Promise<{ link: string; token: string }> {
  const email = await mailTo(db, to);
  if (template) expect(email.template).toBe(template);
  const link = linkIn(email.text);
  if (!link) throw new Error(`No link in the email to ${to}:\n${email.text}`);
  const token = new URL(link).searchParams.get("token");
  if (!token) throw new Error(`No token in the link ${link}`);
  return { link, token };
}

/** The 6-digit code of the newest validation email to an address: the one on a line of its own. */
export async function emailedValidationCode(db: Database, to: string): Promise<string> {
  const email = await mailTo(db, to);
  expect(email.template).toBe("email-validation");
  const code = /^\s*(\d{6})\s*$/m.exec(email.text)?.[1];
  if (!code) throw new Error(`No 6-digit code in the validation email to ${to}:\n${email.text}`);
  return code;
}

/** The newest 6-digit sign-in code emailed to an address. */
export async function emailedCode(db: Database, to: string): Promise<string> {
  const email = await mailTo(db, to);
  expect(email.template).toBe("second-factor-code");
  const code = codeIn(email.text);
  if (!code) throw new Error(`No code in the email to ${to}:\n${email.text}`);
  return code;
}

export interface Customer {
  client: TestClient;
  id: number;
  email: string;
  password: string;
  type: "Personal" | "Business";
}

/**
 * Registers a customer through POST auth/register, opens the emailed validation link's token
 * through POST validation/validate (in the same browser, which signs them in past the second
 * factor), and answers the signed-in browser. `validate: false` signs in with the password
 * instead, leaving the browser signed in with the address still to confirm.
 */
export async function registerCustomer(
  t: TestAppLike,
  options: {
    type?: "Personal" | "Business";
    email?: string;
    password?: string;
    validate?: boolean;
    client?: TestClient;
    /** A referral code typed at registration. */
    referralCode?: string;
    /** What the register page saw when the visitor arrived (utm_*, referrer). */
    attribution?: Record<string, string>;
  } = {},
): Promise<Customer> {
  const type = options.type ?? "Personal";
  const email = options.email ?? uniqueEmail(type.toLowerCase());
  const password = options.password ?? PASSWORD;
  const client = options.client ?? new TestClient(t);
  const registered = await client.post("auth/register", {
    email,
    password,
    type,
    ...(options.referralCode ? { referral_code: options.referralCode } : {}),
    ...(options.attribution ? { attribution: options.attribution } : {}),
  });
  expectStatus(registered, 200);
  const signedIn = options.validate === false
    ? await client.post("auth/login", { email, password })
    : await client.post("validation/validate", { token: (await emailedToken(t.db, email, "email-validation")).token });
  expectStatus(signedIn, 200);
  const id = signedIn.json.body.id as number;
  return { client, id, email: email.toLowerCase(), password, type };
}

/**
 * Onboarding after registration: saves a valid profile of the customer's type (or the one given),
 * answers the sandbox identity check GREEN and confirms. Answers the confirm response.
 */
export async function completeOnboarding(
  customer: Pick<Customer, "client" | "type">,
  options: { profile?: Record<string, unknown>; via?: TestClient } = {},
): Promise<ClientResponse> {
  const client = options.via ?? customer.client;
  const profile = options.profile ?? (customer.type === "Business" ? businessProfile() : personalProfile());
  const saved = await client.post("account/profile", profile);
  expectStatus(saved, 200);
  const answered = await client.post("sumsub/sandbox", { answer: "GREEN" });
  expectStatus(answered, 200);
  const confirmed = await client.get("sumsub/confirm");
  expectStatus(confirmed, 200);
  return confirmed;
}

/** Login, the emailed code, POST challenge: a fully signed-in browser. Answers the challenge response. */
export async function signIn(client: TestClient, email: string, password: string): Promise<ClientResponse> {
  if (!client.db) throw new Error("signIn needs a client made with the database: new TestClient(t)");
  const login = await client.post("auth/login", { email, password });
  expectStatus(login, 200);
  const code = await emailedCode(client.db, email);
  const challenge = await client.post("challenge", { token: code });
  expectStatus(challenge, 200);
  return challenge;
}

export interface Admin {
  client: TestClient;
  id: number;
  email: string;
  password: string;
}

/** The first administrator: POST setup, then login with the emailed code. */
export async function createAdmin(t: TestAppLike, options: { email?: string; password?: string } = {}): Promise<Admin> {
  const email = options.email ?? uniqueEmail("admin");
  const password = options.password ?? "admin password 123";
  const client = new TestClient(t);
  const setup = await client.post("setup", { email, password });
  expectStatus(setup, 200);
  const challenge = await signIn(client, email, password);
  return { client, id: challenge.json.body.id as number, email: email.toLowerCase(), password };
}

/**
 * Another administrator (setup makes only the first), created as `deno task admin:create` does and
 * signed in with the emailed code: the second pair of eyes of the console's four-eyes checks.
 */
export async function anotherAdmin(
  t: TestAppLike,
  options: { email?: string; password?: string } = {},
): Promise<Admin> {
  const email = (options.email ?? uniqueEmail("admin")).toLowerCase();
  const password = options.password ?? "admin password 456";
  const created = await createAdministrator(t.db, email, password);
  if (typeof created !== "number") throw new Error(`The administrator was not created: ${created}`);
  const client = new TestClient(t);
  await signIn(client, email, password);
  return { client, id: created, email, password };
}

// ---------------------------------------------------------------------------------------------
// The app for sign-in journeys

/**
 * The real app on a fresh database with the real database sessions and a test clock. TRUST_PROXY
 * is on so that each TestClient has its own address (X-Forwarded-For) for per-address limits.
 */
export async function signinApp(options: { env?: Record<string, string>; clock?: TestClock } = {}) {
  const clock = options.clock ?? new TestClock();
  const t = await testApp({ sessions: "database", now: clock.now, env: { TRUST_PROXY: "1", ...options.env } });
  return { ...t, clock };
}
