import type { SumsubReview } from "./provider.ts";

/**
 * A small client for the Sumsub API calls the portal makes, signed with an app token as Sumsub
 * documents it (https://docs.sumsub.com/reference/authentication):
 *   X-App-Token       the app token
 *   X-App-Access-Ts   seconds since the Unix epoch (UTC)
 *   X-App-Access-Sig  lower-case hex HMAC-SHA256, keyed with the secret key, of the bytes of
 *                     ts + HTTP method in upper case + path with query (no host) + body
 * The body is signed over exactly the bytes that are sent (UTF-8), so non-ASCII text signs right.
 */

export interface SumsubClientOptions {
  appToken: string;
  secretKey: string;
  /** e.g. https://api.sumsub.com (a path prefix, if any, is part of the signed path). */
  baseUrl: string;
  fetch?: typeof fetch;
  /** Milliseconds since the epoch; tests may pin it. */
  now?: () => number;
  /** Per-request time limit; default 10 s. */
  timeoutMs?: number;
}

/** Sumsub's answer to "Generate access token" (POST /resources/accessTokens/sdk). */
export interface SumsubAccessToken {
  token: string;
  userId: string;
}

/** The parts of "Get applicant data" the portal reads; Sumsub sends much more. */
export interface SumsubApplicant {
  id: string;
  externalUserId?: string;
  createdAt?: string;
  review?: SumsubReview & { reviewId?: string; levelName?: string; createDate?: string };
  /** What the applicant (or we) declared, cross-checked by Sumsub with the document. */
  fixedInfo?: Partial<SumsubFixedInfo> & Record<string, unknown>;
  /** What Sumsub read from the documents (names, dob, their Latin transliterations). */
  info?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * An individual applicant's "provided information" (fixedInfo): what Sumsub cross-checks with the
 * data it reads from the document. Dates are YYYY-MM-DD, countries ISO 3166-1 alpha-3.
 */
export interface SumsubFixedInfo {
  firstName: string;
  lastName: string;
  dob: string;
  country?: string;
}

/** A failed Sumsub call: its HTTP status and Sumsub's own description. */
export class SumsubError extends Error {
  override readonly name = "SumsubError";
  constructor(
    readonly status: number,
    readonly description: string,
    readonly correlationId?: string,
    readonly errorCode?: number | string,
  ) {
    super(
      `Sumsub answered ${status}: ${description}` +
        (errorCode !== undefined ? ` (errorCode ${errorCode})` : "") +
        (correlationId ? ` [correlationId ${correlationId}]` : ""),
    );
  }
}

const encoder = new TextEncoder();

function toBytes(data: string | Uint8Array): Uint8Array {
  return typeof data === "string" ? encoder.encode(data) : data;
}

function hex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * X-App-Access-Sig for one request: lower-case hex HMAC-SHA256(secretKey, ts + METHOD + path + body).
 * `ts` is the X-App-Access-Ts value (seconds); `pathWithQuery` starts with "/"; `body` is the exact
 * request body (a string is taken as UTF-8), empty for none.
 */
export async function sign(
  secretKey: string,
  ts: number | string,
  method: string,
  pathWithQuery: string,
  body: string | Uint8Array = "",
): Promise<string> {
  const head = encoder.encode(`${ts}${method.toUpperCase()}${pathWithQuery}`);
  const tail = toBytes(body);
  const message = new Uint8Array(head.length + tail.length);
  message.set(head, 0);
  message.set(tail, head.length);
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secretKey),
    { name: "HMAC", hash: "SHA-256" },
    false,
    [
      "sign",
    ],
  );
  return hex(await crypto.subtle.sign("HMAC", key, message));
}

export class SumsubClient {
  readonly #appToken: string;
  readonly #secretKey: string;
  readonly #baseUrl: string;
  readonly #fetch: typeof fetch;
  readonly #now: () => number;
  readonly #timeoutMs: number;

  constructor(options: SumsubClientOptions) {
    if (!options.appToken || !options.secretKey) throw new Error("Sumsub needs an app token and a secret key");
    this.#appToken = options.appToken;
    this.#secretKey = options.secretKey;
    this.#baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#fetch = options.fetch ?? fetch;
    this.#now = options.now ?? Date.now;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** The signature of one request with this client's secret key. */
  sign(ts: number | string, method: string, pathWithQuery: string, body: string | Uint8Array = ""): Promise<string> {
    return sign(this.#secretKey, ts, method, pathWithQuery, body);
  }

  /**
   * A WebSDK access token for one applicant ("Generate access token"): POST
   * /resources/accessTokens/sdk with {userId, levelName, ttlInSecs}. `externalUserId` is our id
   * for the user (see externalUserIdFor); Sumsub creates the applicant on first use.
   */
  async createAccessToken(externalUserId: string, levelName: string, ttlInSecs = 600): Promise<SumsubAccessToken> {
    const answer = await this.request("POST", "/resources/accessTokens/sdk", {
      userId: externalUserId,
      levelName,
      ttlInSecs,
    });
    const body = answer.body as Partial<SumsubAccessToken> | null;
    if (answer.status !== 200 || typeof body?.token !== "string" || !body.token) {
      throw toError(answer.status, answer.body, answer.text, "no access token in the answer");
    }
    return { token: body.token, userId: typeof body.userId === "string" ? body.userId : externalUserId };
  }

  /**
   * "Get applicant data by externalUserId": GET /resources/applicants/-;externalUserId={id}/one.
   * null when Sumsub answers 404: the user has not started the WebSDK yet, so there is no result.
   */
  async getApplicantByExternalUserId(externalUserId: string): Promise<SumsubApplicant | null> {
    const answer = await this.request(
      "GET",
      `/resources/applicants/-;externalUserId=${encodeURIComponent(externalUserId)}/one`,
    );
    if (answer.status === 404) return null;
    const body = answer.body as Partial<SumsubApplicant> | null;
    if (answer.status !== 200 || typeof body?.id !== "string") {
      throw toError(answer.status, answer.body, answer.text, "no applicant in the answer");
    }
    return body as SumsubApplicant;
  }

  /**
   * "Create applicant": POST /resources/applicants?levelName=… with {externalUserId, fixedInfo}.
   * null when Sumsub answers 409: an applicant with this externalUserId exists already.
   */
  async createApplicant(
    externalUserId: string,
    levelName: string,
    fixedInfo: SumsubFixedInfo,
  ): Promise<SumsubApplicant | null> {
    let answer;
    try {
      answer = await this.request(
        "POST",
        `/resources/applicants?levelName=${encodeURIComponent(levelName)}`,
        { externalUserId, fixedInfo },
      );
    } catch (err) {
      if (err instanceof SumsubError && err.status === 409) return null;
      throw err;
    }
    const body = answer.body as Partial<SumsubApplicant> | null;
    if (answer.status !== 200 && answer.status !== 201 || typeof body?.id !== "string") {
      throw toError(answer.status, answer.body, answer.text, "no applicant in the answer");
    }
    return body as SumsubApplicant;
  }

  /** "Change provided information": PATCH /resources/applicants/{id}/fixedInfo with the fields to set. */
  async changeFixedInfo(applicantId: string, fixedInfo: SumsubFixedInfo): Promise<void> {
    const answer = await this.request(
      "PATCH",
      `/resources/applicants/${encodeURIComponent(applicantId)}/fixedInfo`,
      fixedInfo,
    );
    if (answer.status === 404) throw toError(answer.status, answer.body, answer.text, "no such applicant");
  }

  /**
   * One signed call. Non-2xx answers other than 404 throw a SumsubError; a 404 is returned so the
   * caller decides what "not found" means.
   */
  async request(
    method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE",
    pathWithQuery: string,
    json?: unknown,
  ): Promise<{ status: number; body: unknown; text: string }> {
    const url = new URL(this.#baseUrl + pathWithQuery);
    // Sign what is actually sent: the path and query after URL normalisation, the body's bytes.
    const signedPath = url.pathname + url.search;
    const body = json === undefined ? undefined : encoder.encode(JSON.stringify(json));
    const ts = Math.floor(this.#now() / 1000);
    const headers: Record<string, string> = {
      "Accept": "application/json",
      "X-App-Token": this.#appToken,
      "X-App-Access-Ts": String(ts),
      "X-App-Access-Sig": await this.sign(ts, method, signedPath, body ?? ""),
    };
    if (body) headers["Content-Type"] = "application/json; charset=utf-8";
    let res: Response;
    try {
      res = await this.#fetch(url, { method, headers, body, signal: AbortSignal.timeout(this.#timeoutMs) });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new Error(`Sumsub could not be reached (${method} ${url.origin}${url.pathname}): ${reason}`, {
        cause: err,
      });
    }
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    if (!res.ok && res.status !== 404) throw toError(res.status, parsed, text, res.statusText || "request failed");
    return { status: res.status, body: parsed, text };
  }
}

/** Sumsub's error answers look like {"description": "...", "code": 401, "correlationId": "...", "errorCode": 4000}. */
function toError(status: number, body: unknown, text: string, fallback: string): SumsubError {
  const b = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
  const description = typeof b.description === "string" && b.description
    ? b.description
    : typeof b.message === "string" && b.message
    ? b.message
    : text.trim().slice(0, 200) || fallback;
  const correlationId = typeof b.correlationId === "string" ? b.correlationId : undefined;
  const errorCode = typeof b.errorCode === "number" || typeof b.errorCode === "string" ? b.errorCode : undefined;
  return new SumsubError(status, description, correlationId, errorCode);
}
