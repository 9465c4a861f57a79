import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local stand-in for api.sumsub.com for tests of the portal's whole flow: the calls the portal
 * makes (access token, applicant by externalUserId, create applicant with fixedInfo, change
 * fixedInfo), answered from `applicants` (by externalUserId) as Sumsub documents them. Signatures
 * are checked in tests/integration/identity-sumsub.test.ts; here only the app token must be sent.
 */
export interface SumsubStandIn {
  baseUrl: string;
  /** Applicants by externalUserId. */
  applicants: Map<string, Record<string, unknown>>;
  /** Every request: method, path with query, JSON body. */
  seen: { method: string; url: string; body: unknown }[];
  close(): Promise<void>;
}

export async function sumsubStandIn(): Promise<SumsubStandIn> {
  const applicants = new Map<string, Record<string, unknown>>();
  const seen: SumsubStandIn["seen"] = [];
  const answer = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
    res.end(text);
  };
  const refuse = (res: ServerResponse, status: number, description: string) =>
    answer(res, status, { description, code: status, correlationId: `req-${randomUUID()}` });

  function handle(req: IncomingMessage, res: ServerResponse, raw: string) {
    const body = raw ? JSON.parse(raw) : undefined;
    seen.push({ method: req.method!, url: req.url!, body });
    if (!req.headers["x-app-token"] || !req.headers["x-app-access-sig"]) return refuse(res, 401, "Unsigned");
    const url = new URL(req.url!, "http://sumsub.invalid");
    if (req.method === "POST" && url.pathname === "/resources/accessTokens/sdk") {
      return answer(res, 200, { token: `_act-sbx-${body.userId}`, userId: body.userId });
    }
    if (req.method === "POST" && url.pathname === "/resources/applicants") {
      if (!url.searchParams.get("levelName")) return refuse(res, 400, "levelName is required");
      if (applicants.has(body.externalUserId)) {
        return refuse(res, 409, `Applicant with external user id '${body.externalUserId}' already exists`);
      }
      const created = {
        id: randomUUID().replaceAll("-", "").slice(0, 24),
        createdAt: "2026-03-01 10:00:00",
        externalUserId: body.externalUserId,
        type: "individual",
        fixedInfo: body.fixedInfo,
      };
      applicants.set(body.externalUserId, created);
      return answer(res, 201, created);
    }
    const fixedInfo = /^\/resources\/applicants\/([^/]+)\/fixedInfo$/.exec(url.pathname);
    if (req.method === "PATCH" && fixedInfo) {
      const found = [...applicants.values()].find((a) => a.id === decodeURIComponent(fixedInfo[1]));
      if (!found) return refuse(res, 404, "Applicant not found");
      found.fixedInfo = { ...(found.fixedInfo as object), ...body };
      return answer(res, 200, found.fixedInfo);
    }
    const byExternal = /^\/resources\/applicants\/-;externalUserId=([^/]+)\/one$/.exec(url.pathname);
    if (req.method === "GET" && byExternal) {
      const found = applicants.get(decodeURIComponent(byExternal[1]));
      return found ? answer(res, 200, found) : refuse(res, 404, "Applicant not found");
    }
    refuse(res, 404, "Not found");
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    applicants,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
