import { createHmac, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import type { Database } from "../../db/client.ts";
import { identityChecks, users } from "../../db/schema.ts";
import { confirmResult, identityProvider } from "../../server/identity/index.ts";
import { reviewToResult } from "../../server/identity/provider.ts";
import { sign, SumsubClient, SumsubError } from "../../server/identity/sumsub-client.ts";
import { testDatabase } from "../helpers/db.ts";

/**
 * The Sumsub client against a local stand-in for api.sumsub.com that checks every request exactly
 * as Sumsub documents it (https://docs.sumsub.com/reference/authentication): X-App-Token is the
 * app token, X-App-Access-Ts is Unix seconds close to now, and X-App-Access-Sig is the lower-case
 * hex HMAC-SHA256, keyed with the secret key, of ts + METHOD + path with query + raw body bytes,
 * computed here independently with node:crypto.
 */

const APP_TOKEN = "sbx:test-app-token";
const SECRET_KEY = "test-secret-key-Zq8";
const LEVEL = "basic-kyc-level";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

let server: Server;
let baseUrl: string;
let seen: Seen[] = [];
/** Applicants by externalUserId, as "Get applicant data by externalUserId" answers them. */
const applicants = new Map<string, Record<string, unknown>>();

function answer(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

function refuse(res: ServerResponse, status: number, description: string, errorCode?: number) {
  answer(res, status, {
    description,
    code: status,
    correlationId: `req-${randomUUID()}`,
    ...(errorCode ? { errorCode } : {}),
  });
}

/** The check Sumsub makes; returns the reason for refusing, or null when the request is signed right. */
function authProblem(req: IncomingMessage, body: Buffer): string | null {
  const token = req.headers["x-app-token"];
  const ts = req.headers["x-app-access-ts"];
  const sig = req.headers["x-app-access-sig"];
  if (token !== APP_TOKEN) return "App token is not valid";
  if (typeof ts !== "string" || !/^\d+$/.test(ts)) return "Request timestamp is missing or not a number of seconds";
  if (Math.abs(Number(ts) - Date.now() / 1000) > 5) return "Request timestamp is too far from the current time";
  const expected = createHmac("sha256", SECRET_KEY)
    .update(Buffer.concat([Buffer.from(ts + req.method!.toUpperCase() + req.url!, "utf8"), body]))
    .digest("hex");
  if (sig !== expected) return "Request signature mismatch";
  return null;
}

function handle(req: IncomingMessage, res: ServerResponse, body: Buffer) {
  seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
  const problem = authProblem(req, body);
  if (problem) return refuse(res, 401, problem, 4003);

  if (req.method === "POST" && req.url === "/resources/accessTokens/sdk") {
    if (!String(req.headers["content-type"]).startsWith("application/json")) return refuse(res, 400, "JSON expected");
    const { userId, levelName, ttlInSecs } = JSON.parse(body.toString("utf8"));
    if (typeof userId !== "string" || typeof levelName !== "string" || typeof ttlInSecs !== "number") {
      return refuse(res, 400, "userId, levelName and ttlInSecs are required");
    }
    return answer(res, 200, { token: `_act-sbx-${Buffer.from(userId).toString("hex")}`, userId });
  }

  const path = new URL(req.url!, "http://sumsub.invalid").pathname;
  if (req.method === "POST" && path === "/resources/applicants") {
    const { externalUserId, fixedInfo } = JSON.parse(body.toString("utf8"));
    if (applicants.has(externalUserId)) return refuse(res, 409, "Applicant already exists");
    applicant(externalUserId, undefined);
    applicants.get(externalUserId)!.fixedInfo = fixedInfo;
    return answer(res, 201, applicants.get(externalUserId));
  }
  const fixedInfo = /^\/resources\/applicants\/([^/]+)\/fixedInfo$/.exec(path);
  if (req.method === "PATCH" && fixedInfo) {
    const found = [...applicants.values()].find((a) => a.id === fixedInfo[1]);
    if (!found) return refuse(res, 404, "Applicant not found");
    found.fixedInfo = { ...(found.fixedInfo as object), ...JSON.parse(body.toString("utf8")) };
    return answer(res, 200, found.fixedInfo);
  }
  const byExternal = /^\/resources\/applicants\/-;externalUserId=([^/]+)\/one$/.exec(path);
  if (req.method === "GET" && byExternal) {
    const applicant = applicants.get(decodeURIComponent(byExternal[1]));
    if (!applicant) return refuse(res, 404, "Applicant not found");
    return answer(res, 200, applicant);
  }
  refuse(res, 404, "Not found");
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen = [];
  applicants.clear();
});

const client = (overrides: Partial<ConstructorParameters<typeof SumsubClient>[0]> = {}) =>
  new SumsubClient({ appToken: APP_TOKEN, secretKey: SECRET_KEY, baseUrl, ...overrides });

function applicant(externalUserId: string, review: Record<string, unknown> | undefined) {
  applicants.set(externalUserId, {
    id: `66a1${externalUserId.replace(/\D/g, "").padStart(20, "0")}`,
    createdAt: "2026-03-01 10:00:00",
    externalUserId,
    type: "individual",
    ...(review ? { review } : {}),
  });
}

describe("signing", () => {
  test("sign() is hex HMAC-SHA256 of ts + METHOD + path with query + body, as node:crypto computes it", async () => {
    const body = '{"userId":"portal-1","levelName":"basic-kyc-level","ttlInSecs":600}';
    const expected = createHmac("sha256", SECRET_KEY)
      .update(`1700000000POST/resources/accessTokens/sdk?x=1${body}`)
      .digest("hex");
    expect(await sign(SECRET_KEY, 1700000000, "post", "/resources/accessTokens/sdk?x=1", body)).toBe(expected);
    expect(await sign(SECRET_KEY, "1700000000", "GET", "/resources/applicants/-;externalUserId=portal-1/one"))
      .toBe(
        createHmac("sha256", SECRET_KEY).update("1700000000GET/resources/applicants/-;externalUserId=portal-1/one")
          .digest("hex"),
      );
    const accented = '{"userId":"portal-Zoë ✓"}';
    expect(await sign(SECRET_KEY, 1700000000, "POST", "/resources/accessTokens/sdk", accented))
      .toBe(
        createHmac("sha256", SECRET_KEY).update(
          Buffer.from(`1700000000POST/resources/accessTokens/sdk${accented}`, "utf8"),
        ).digest("hex"),
      );
  });
});

describe("access tokens for the WebSDK", () => {
  test("are obtained with a correctly signed request", async () => {
    const token = await client().createAccessToken("portal-7", LEVEL);
    expect(token).toEqual({ token: `_act-sbx-${Buffer.from("portal-7").toString("hex")}`, userId: "portal-7" });

    expect(seen).toHaveLength(1);
    const [req] = seen;
    expect(req.method).toBe("POST");
    expect(req.url).toBe("/resources/accessTokens/sdk");
    expect(JSON.parse(req.body.toString("utf8"))).toEqual({ userId: "portal-7", levelName: LEVEL, ttlInSecs: 600 });
    // The timestamp is in seconds, not milliseconds.
    expect(String(req.headers["x-app-access-ts"])).toMatch(/^\d{10}$/);
    expect(req.headers["x-app-access-sig"]).toMatch(/^[0-9a-f]{64}$/);
  });

  test("a wrong secret key gets a clear error with Sumsub's status and description", async () => {
    const err = await client({ secretKey: "not-the-secret" }).createAccessToken("portal-7", LEVEL).catch((e) => e);
    expect(err).toBeInstanceOf(SumsubError);
    expect(err.status).toBe(401);
    expect(err.description).toBe("Request signature mismatch");
    expect(err.correlationId).toMatch(/^req-/);
    expect(err.message).toMatch(/^Sumsub answered 401: Request signature mismatch/);
  });

  test("a wrong app token is refused too", async () => {
    const err = await client({ appToken: "sbx:someone-else" }).createAccessToken("portal-7", LEVEL).catch((e) => e);
    expect(err).toBeInstanceOf(SumsubError);
    expect(err.message).toContain("App token is not valid");
  });

  test("a timestamp far from now is refused, so the client must sign with the current time", async () => {
    const err = await client({ now: () => Date.now() - 10 * 60_000 }).createAccessToken("portal-7", LEVEL).catch((e) =>
      e
    );
    expect(err).toBeInstanceOf(SumsubError);
    expect(err.description).toBe("Request timestamp is too far from the current time");
  });

  test("a body with non-ASCII characters is signed over its exact UTF-8 bytes", async () => {
    const userId = "portal-Zoë-Ōsaka-✓-😀";
    const level = "niveau-vérifié-ß";
    const token = await client().createAccessToken(userId, level, 1200);
    expect(token.userId).toBe(userId);

    const [req] = seen;
    const sent = JSON.stringify({ userId, levelName: level, ttlInSecs: 1200 });
    expect(req.body.equals(Buffer.from(sent, "utf8"))).toBe(true);
    expect(Number(req.headers["content-length"])).toBe(Buffer.byteLength(sent, "utf8"));
    expect(Buffer.byteLength(sent, "utf8")).toBeGreaterThan(sent.length);
  });

  test("an unreachable Sumsub gives a clear error", async () => {
    // A port that was free a moment ago: nothing listens there.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const err = await client({ baseUrl: `http://127.0.0.1:${port}` }).createAccessToken("portal-7", LEVEL).catch((e) =>
      e
    );
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toContain(
      `Sumsub could not be reached (POST http://127.0.0.1:${port}/resources/accessTokens/sdk)`,
    );
  });
});

describe("reading the result from Sumsub", () => {
  test("GREEN approves", async () => {
    applicant("portal-1", {
      reviewStatus: "completed",
      reviewDate: "2026-03-01 10:05:02+0000",
      reviewResult: { reviewAnswer: "GREEN" },
    });
    const found = await client().getApplicantByExternalUserId("portal-1");
    expect(found?.id).toMatch(/^66a1/);
    expect(seen[0].url).toBe("/resources/applicants/-;externalUserId=portal-1/one");
    expect(reviewToResult(found!.review)).toEqual({ status: "approved", reviewedAt: new Date("2026-03-01T10:05:02Z") });
  });

  test("RED with RETRY lets the user try again, with Sumsub's moderation comment", async () => {
    applicant("portal-2", {
      reviewStatus: "completed",
      reviewResult: {
        reviewAnswer: "RED",
        reviewRejectType: "RETRY",
        rejectLabels: ["UNSATISFACTORY_PHOTOS"],
        moderationComment: "We could not read your passport. Please upload a sharper photo.",
        clientComment: "Blurry scan; internal note",
      },
    });
    const provider = identityProvider({
      sumsub: { appToken: APP_TOKEN, secretKey: SECRET_KEY, webhookSecret: undefined, baseUrl, levelName: LEVEL },
    }, null!);
    const result = await provider.readResult(2);
    expect(result).toEqual({
      status: "retry",
      moderationComment: "We could not read your passport. Please upload a sharper photo.",
      applicantId: applicants.get("portal-2")!.id,
    });
  });

  test("RED with FINAL rejects, and the client comment never reaches the result", async () => {
    applicant("portal-3", {
      reviewStatus: "completed",
      reviewResult: {
        reviewAnswer: "RED",
        reviewRejectType: "FINAL",
        moderationComment: "We cannot verify your identity.",
        clientComment: "Sanctions list match",
      },
    });
    const found = await client().getApplicantByExternalUserId("portal-3");
    const result = reviewToResult(found!.review);
    expect(result).toEqual({ status: "rejected", moderationComment: "We cannot verify your identity." });
    expect(JSON.stringify(result)).not.toContain("Sanctions");
  });

  test("no applicant yet (404) means no result yet: pending", async () => {
    expect(await client().getApplicantByExternalUserId("portal-4")).toBeNull();
    expect(seen[0].headers["x-app-token"]).toBe(APP_TOKEN);
    const provider = identityProvider({
      sumsub: { appToken: APP_TOKEN, secretKey: SECRET_KEY, webhookSecret: undefined, baseUrl, levelName: LEVEL },
    }, null!);
    expect(await provider.readResult(4)).toEqual({ status: "pending" });
  });

  test("a review not completed yet is pending", async () => {
    applicant("portal-5", { reviewStatus: "pending", createDate: "2026-03-01 10:01:00+0000" });
    const found = await client().getApplicantByExternalUserId("portal-5");
    expect(reviewToResult(found!.review)).toEqual({ status: "pending" });
    expect(reviewToResult(undefined)).toEqual({ status: "pending" });
  });

  test("the query string is part of what is signed", async () => {
    applicant("portal-8", { reviewStatus: "completed", reviewResult: { reviewAnswer: "GREEN" } });
    const answer = await client().request(
      "GET",
      "/resources/applicants/-;externalUserId=portal-8/one?fields=review&lang=fr%C3%A9",
    );
    expect(answer.status).toBe(200);
    expect(seen[0].url).toBe("/resources/applicants/-;externalUserId=portal-8/one?fields=review&lang=fr%C3%A9");
    expect((answer.body as { externalUserId: string }).externalUserId).toBe("portal-8");
  });

  test("a wrong secret while reading is an error, not a pending result", async () => {
    applicant("portal-6", { reviewStatus: "completed", reviewResult: { reviewAnswer: "GREEN" } });
    const err = await client({ secretKey: "wrong" }).getApplicantByExternalUserId("portal-6").catch((e) => e);
    expect(err).toBeInstanceOf(SumsubError);
    expect(err.status).toBe(401);
  });
});

const ZOE = { firstName: "Zoë", lastName: "Ōsaka", dob: "1991-04-02", country: "FR" };

describe("the declared identity goes to Sumsub before the check (decision 085)", () => {
  const provider = () =>
    identityProvider({
      sumsub: { appToken: APP_TOKEN, secretKey: SECRET_KEY, webhookSecret: undefined, baseUrl, levelName: LEVEL },
    }, null!);
  const sent = (i: number) => JSON.parse(seen[i].body.toString("utf8"));

  test("a new applicant is created with the profile's name, date of birth and country as its fixedInfo", async () => {
    await provider().startCheck({ id: 21, username: "zoe@example.com", declared: ZOE });
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual([
      "GET /resources/applicants/-;externalUserId=portal-21/one",
      `POST /resources/applicants?levelName=${LEVEL}`,
      "POST /resources/accessTokens/sdk",
    ]);
    // Only what the check needs; the country as Sumsub wants it (alpha-3), signed over its UTF-8.
    expect(sent(1)).toEqual({
      externalUserId: "portal-21",
      fixedInfo: { firstName: "Zoë", lastName: "Ōsaka", dob: "1991-04-02", country: "FRA" },
    });
  });

  test("an applicant that exists with other details is changed to the profile's; the same ones are left alone", async () => {
    applicant("portal-22", undefined);
    applicants.get("portal-22")!.fixedInfo = { firstName: "Bob", lastName: "Smith", dob: "1970-01-01" };
    await provider().startCheck({ id: 22, username: "zoe@example.com", declared: ZOE });
    expect(seen[1].method).toBe("PATCH");
    expect(seen[1].url).toBe(`/resources/applicants/${applicants.get("portal-22")!.id}/fixedInfo`);
    expect(sent(1)).toEqual({ firstName: "Zoë", lastName: "Ōsaka", dob: "1991-04-02", country: "FRA" });

    seen = [];
    await provider().startCheck({ id: 22, username: "zoe@example.com", declared: ZOE });
    expect(seen.map((r) => r.method)).toEqual(["GET", "POST"]);
  });

  test("the result carries what Sumsub read from the document", async () => {
    applicant("portal-23", { reviewStatus: "completed", reviewResult: { reviewAnswer: "GREEN" } });
    applicants.get("portal-23")!.info = { firstName: "ZOE", lastName: "OSAKA", dob: "1991-04-02", country: "FRA" };
    expect(await provider().readResult(23)).toMatchObject({
      status: "approved",
      document: { firstName: "ZOE", lastName: "OSAKA", dob: "1991-04-02" },
    });
  });
});

describe("the Sumsub provider end to end", () => {
  let db: Database;
  beforeAll(async () => {
    db = await testDatabase();
    await db.insert(users).values([{ id: 11, username: "zoe@example.com" }]);
  });

  test("starts with a WebSDK token for portal-<id> and records what Sumsub decided", async () => {
    const config = {
      sumsub: { appToken: APP_TOKEN, secretKey: SECRET_KEY, webhookSecret: "wh", baseUrl, levelName: LEVEL },
    };
    const provider = identityProvider(config, db);
    expect(provider.name).toBe("sumsub");
    expect(await provider.startCheck({ id: 11, username: "zoe@example.com", declared: ZOE })).toEqual({
      kind: "sumsub",
      accessToken: `_act-sbx-${Buffer.from("portal-11").toString("hex")}`,
    });
    expect(JSON.parse(seen.at(-1)!.body.toString("utf8"))).toEqual({
      userId: "portal-11",
      levelName: LEVEL,
      ttlInSecs: 600,
    });

    // The applicant exists from the start (made with the declared identity), without a review yet.
    expect(await confirmResult(db, provider, 11)).toEqual({
      provider: "sumsub",
      status: "pending",
      applicantId: applicants.get("portal-11")!.id,
    });

    applicant("portal-11", {
      reviewStatus: "completed",
      reviewDate: "2026-03-02 08:00:00+0000",
      reviewResult: { reviewAnswer: "GREEN" },
    });
    const confirmed = await confirmResult(db, provider, 11);
    expect(confirmed).toMatchObject({
      provider: "sumsub",
      status: "approved",
      applicantId: applicants.get("portal-11")!.id,
    });
    const [row] = await db.select().from(identityChecks);
    expect(row).toMatchObject({
      userId: 11,
      provider: "sumsub",
      status: "approved",
      reviewedAt: new Date("2026-03-02T08:00:00Z"),
    });

    // Sumsub later shows the applicant re-opened (pending): an approval is not undone by a read.
    applicants.get("portal-11")!.review = { reviewStatus: "pending" };
    expect(await confirmResult(db, provider, 11)).toMatchObject({ status: "approved" });
  });
});
