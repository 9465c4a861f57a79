import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import type { AppEnv } from "../../server/env.ts";
import { type Admin, expectStatus, type TestClient } from "../helpers/client.ts";
import { type MoneyApp, moneyApp } from "../helpers/money.ts";
import {
  addMember,
  addRecipient,
  type Member,
  paid,
  type PaymentAccount,
  paymentAccount,
  setRule,
} from "../helpers/payments.ts";

/**
 * Rejecting and cancelling a payment take an optional body (SPEC section 7: the DELETE takes only
 * the query's id): a client that sends none at all (fetch without a body, curl without -d) is
 * answered as if it sent {}, over a real HTTP server, where Deno hands such a request over with an
 * empty stream rather than no body, and without a Content-Length for a DELETE. A body that really
 * is not JSON is still a 415.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let t: MoneyApp;
let admin: Admin;
let account: PaymentAccount;
let payer: Member;
let approver: Member;
let recipient: number;
let server: Deno.HttpServer<Deno.NetAddr>;
let origin: string;

beforeAll(async () => {
  ({ t, admin } = await moneyApp());
  account = await paymentAccount(t, admin, { GBP: "1000.00" });
  payer = await addMember(t, account, "payer");
  approver = await addMember(t, account, "approver");
  recipient = await addRecipient(t, account, { name: "Tom Atkins", currency: "GBP", country: "GB" });
  await setRule(account.owner.client, { mode: "all" });
  // The portal served as main.ts serves it.
  server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request, info) => t.app.fetch(request, info),
  );
  origin = `http://127.0.0.1:${server.addr.port}`;
});

afterAll(async () => {
  await server?.shutdown();
});

/**
 * A request as curl sends it without -d, over a socket of its own: the request line and the
 * headers, no Content-Length and no body at all (fetch would add Content-Length: 0 to a POST).
 */
async function withoutBody(url: URL, method: string, headers: Headers): Promise<Response> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
  const lines = [`${method} ${url.pathname}${url.search} HTTP/1.1`, `Host: 127.0.0.1:${server.addr.port}`];
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  lines.push("Connection: close");
  await conn.write(new TextEncoder().encode(`${lines.join("\r\n")}\r\n\r\n`));
  // Read to the end: the server closes the connection after its answer.
  const raw = await new Response(conn.readable).arrayBuffer();
  const text = new TextDecoder().decode(raw);
  const split = text.indexOf("\r\n\r\n");
  const [statusLine, ...headerLines] = text.slice(0, split).split("\r\n");
  const answerHeaders = new Headers(headerLines.map((line) => {
    const colon = line.indexOf(":");
    return [line.slice(0, colon).trim(), line.slice(colon + 1).trim()] as [string, string];
  }));
  let body = text.slice(split + 4);
  if (answerHeaders.get("transfer-encoding") === "chunked") {
    let decoded = "";
    for (let at = 0;;) {
      const end = body.indexOf("\r\n", at);
      const size = parseInt(body.slice(at, end), 16);
      if (!size) break;
      decoded += body.slice(end + 2, end + 2 + size);
      at = end + 2 + size + 2;
    }
    body = decoded;
  }
  answerHeaders.delete("transfer-encoding");
  answerHeaders.delete("content-length");
  return new Response(body, { status: Number(statusLine.split(" ")[1]), headers: answerHeaders });
}

/**
 * The same person, their requests sent over HTTP to the running server: with fetch, or without a
 * body, as curl sends one without -d.
 */
function overHttp(client: TestClient): TestClient {
  const viaHttp = {
    request: (url: string, init: RequestInit) => {
      const { pathname, search } = new URL(url);
      const target = new URL(`${origin}${pathname}${search}`);
      if (init.body === undefined) return withoutBody(target, init.method!, new Headers(init.headers));
      return fetch(target, init);
    },
  };
  return client.to(viaHttp as unknown as Hono<AppEnv>);
}

const waiting = () => paid(payer.client, { recipient_id: recipient, amount: "10.00", sell_currency: "GBP" });

describe("no body at all", () => {
  test("an approver rejects with a DELETE that sends no body: the payment is rejected and its money released", async () => {
    const p = await waiting();
    const res = await overHttp(approver.client).request("DELETE", `account/pendingpayments/one?id=${p.id}`);
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({ id: p.id, status: "rejected", reason: null });
  });

  test("a payer cancels with a POST that sends no body: the payment is cancelled", async () => {
    const p = await waiting();
    const res = await overHttp(payer.client).request("POST", `account/payments/${p.id}/cancel`);
    expectStatus(res, 200);
    expect(res.json.body).toMatchObject({ id: p.id, status: "cancelled", reason: null });
  });
});

describe("a body that is not JSON", () => {
  test("is still a 415, with or without a Content-Type, and the payment still waits", async () => {
    const p = await waiting();
    const asText = await overHttp(approver.client).request(
      "DELETE",
      `account/pendingpayments/one?id=${p.id}`,
      "reason=late",
      { "content-type": "text/plain" },
    );
    expectStatus(asText, 415);
    expect(asText.json.error).toMatch(/^Send the request body as JSON/);
    const undeclared = await overHttp(payer.client).request(
      "POST",
      `account/payments/${p.id}/cancel`,
      new TextEncoder().encode("reason=late"),
      { "content-type": null },
    );
    expectStatus(undeclared, 415);
    const still = await approver.client.get(`account/pendingpayments/one?id=${p.id}`);
    expect(still.json.body.status).toBe("pending_approval");
  });
});
