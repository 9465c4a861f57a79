import { Hono } from "hono";
import { Buffer } from "node:buffer";
import { readdirSync } from "node:fs";
import { brotliDecompressSync, createBrotliDecompress, gunzipSync } from "node:zlib";
import { beforeAll, describe, expect, test } from "vitest";
import { PAGES } from "../../routes/pages.tsx";
import { compression, negotiateEncoding } from "../../server/http/compression.ts";
import { REGISTERED_CALLS } from "../../server/http/route.ts";
import { PUBLIC_PAGE_SCRIPT_SRC } from "../../server/http/security.ts";
import type { TestClient } from "../helpers/client.ts";
import { fundedCustomer, type MoneyApp, moneyApp } from "../helpers/money.ts";

/**
 * What a browser receives (issue 9, decision 034): every text answer over 1 KB comes compressed
 * with brotli or gzip when the request allows it, and as it is when it does not; the built assets
 * come in the forms written at build time.
 */

const TEXT = /^(text\/|application\/(json|javascript|xml)|image\/svg\+xml|[^;]+\+(json|xml))/;

/** Each page of the portal and each GET call, with a sample id where the path has one. */
function everyPath(id: number): string[] {
  const withId = (path: string) => path.replace(/:[a-z_]+\{[^}]*\}|:[a-z_]+/gi, String(id));
  const calls = [...REGISTERED_CALLS].filter((call) => call.method === "GET").map((call) => `/api${call.path}`);
  return [...new Set([...PAGES.map((page) => page.path), ...calls, "/favicon.svg", "/robots.txt", "/no-such-page"])]
    .map(withId);
}

/** The same request as a browser would send it, with this visitor's cookies and an Accept-Encoding. */
async function fetchAs(t: MoneyApp, who: TestClient | null, path: string, acceptEncoding: string | null) {
  const headers = new Headers();
  if (acceptEncoding !== null) headers.set("accept-encoding", acceptEncoding);
  const cookies = ["session", "device", "registration"].flatMap((name) => {
    const value = who?.cookie(name);
    return value ? [`${name}=${value}`] : [];
  });
  if (cookies.length) headers.set("cookie", cookies.join("; "));
  const res = await t.app.request(path, { headers });
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

const decode = (bytes: Uint8Array, encoding: string | null) =>
  encoding === "br" ? brotliDecompressSync(bytes) : encoding === "gzip" ? gunzipSync(bytes) : bytes;

// Each answer has its own CSP nonce; everything else is the same page.
const sameBut = (text: string) => text.replace(/nonce="[^"]*"/g, 'nonce=""');

describe("compression of every answer", () => {
  let t: MoneyApp;
  const visitors: [string, TestClient | null][] = [];
  let customerId = 0;

  beforeAll(async () => {
    const app = await moneyApp();
    t = app.t;
    const customer = await fundedCustomer(t, app.admin, "GBP", "1250.00");
    customerId = customer.id;
    visitors.push(["a visitor", null], ["a customer", customer.client], ["an administrator", app.admin.client]);
  });

  test("every text answer over 1 KB is compressed when the browser accepts it, and not when it does not", async () => {
    const seen = { compressed: 0, small: 0 };
    for (const [who, client] of visitors) {
      for (const path of everyPath(customerId)) {
        const plain = await fetchAs(t, client, path, null);
        const type = plain.res.headers.get("content-type") ?? "";
        const where = `${path} as ${who} (${plain.res.status}, ${type})`;
        expect(plain.res.headers.get("content-encoding"), where).toBeNull();
        if (!TEXT.test(type) || plain.res.status === 204 || plain.res.status === 304) continue;
        expect(plain.res.headers.get("vary") ?? "", where).toMatch(/accept-encoding/i);

        for (
          const [accept, expected] of [["br, gzip, deflate", "gzip"], ["br", "br"], ["br;q=0, gzip", "gzip"]]
        ) {
          const { res, bytes } = await fetchAs(t, client, path, accept);
          const encoding = res.headers.get("content-encoding");
          expect(res.status, where).toBe(plain.res.status);
          expect(res.headers.get("vary") ?? "", where).toMatch(/accept-encoding/i);
          if (plain.bytes.byteLength <= 1024) {
            expect(encoding, `${where}: ${plain.bytes.byteLength} bytes go out as they are`).toBeNull();
            seen.small++;
            continue;
          }
          // A public page kept for every visitor was compressed once, as small as it goes: brotli
          // whenever the browser accepts it (decision 058).
          const kept = res.headers.get("content-security-policy")?.includes(PUBLIC_PAGE_SCRIPT_SRC);
          expect(encoding, `${where} with Accept-Encoding: ${accept}`).toBe(
            kept && accept === "br, gzip, deflate" ? "br" : expected,
          );
          expect(bytes.byteLength, where).toBeLessThan(plain.bytes.byteLength);
          const length = res.headers.get("content-length");
          if (length !== null) expect(Number(length), where).toBe(bytes.byteLength);
          const text = new TextDecoder().decode(decode(bytes, encoding));
          expect(sameBut(text), where).toBe(sameBut(new TextDecoder().decode(plain.bytes)));
          seen.compressed++;
        }

        const refused = await fetchAs(t, client, path, "identity, br;q=0, gzip;q=0");
        expect(refused.res.headers.get("content-encoding"), where).toBeNull();
      }
    }
    // The walk reached signed-in pages and calls, large and small.
    expect(seen.compressed).toBeGreaterThan(100);
    expect(seen.small).toBeGreaterThan(10);
  }, 120_000);

  test("a signed-in page is compressed for its customer, the balances they see included", async () => {
    const customer = visitors[1][1]!;
    const { res, bytes } = await fetchAs(t, customer, "/account/balances", "gzip, deflate, br, zstd");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(new TextDecoder().decode(decode(bytes, "gzip"))).toContain(">1250.00<");
  });

  test("the built scripts and stylesheet come precompressed, brotli first, as they are without", async () => {
    const files = readdirSync("dist/assets").filter((name) => /\.(js|css)$/.test(name));
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const path = `/assets/${file}`;
      const plain = await fetchAs(t, null, path, null);
      expect(plain.res.status).toBe(200);
      expect(plain.res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      if (plain.bytes.byteLength <= 1024) continue;
      for (const [accept, expected] of [["gzip, deflate, br", "br"], ["gzip", "gzip"]]) {
        const { res, bytes } = await fetchAs(t, null, path, accept);
        expect(res.headers.get("content-encoding"), path).toBe(expected);
        expect(res.headers.get("vary") ?? "", path).toMatch(/accept-encoding/i);
        expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
        expect(decode(bytes, expected), path).toEqual(Buffer.from(plain.bytes));
      }
    }
  }, 60_000);

  test("a public page kept for every visitor goes out as the same bytes, compressed once, brotli when accepted", async () => {
    // The visit that keeps the page (or, after a quiet second, reads the data versions again) goes
    // through the layers, compressed there; the next ones get the kept answer (decision 059).
    await fetchAs(t, null, "/calculator", "gzip, br");
    const first = await fetchAs(t, null, "/calculator", "gzip, br");
    const second = await fetchAs(t, null, "/calculator", "gzip, br");
    const gzip = await fetchAs(t, null, "/calculator", "gzip");
    const plain = await fetchAs(t, null, "/calculator", null);
    expect([first, second, gzip, plain].map(({ res }) => res.headers.get("content-encoding")))
      .toEqual(["br", "br", "gzip", null]);
    // Kept bytes: the second visitor's answer is the first's, to the byte (no nonce of its own).
    expect(Buffer.from(second.bytes)).toEqual(Buffer.from(first.bytes));
    const pages = [decode(first.bytes, "br"), decode(gzip.bytes, "gzip"), plain.bytes]
      .map((bytes) => new TextDecoder().decode(bytes));
    expect(new Set(pages).size).toBe(1);
    expect(pages[0]).toContain("data-island");
    expect(pages[0]).not.toContain("nonce=");
    expect(first.res.headers.get("content-security-policy")).toContain(`${PUBLIC_PAGE_SCRIPT_SRC};`);
  });
});

describe("the compression layer", () => {
  test("chooses gzip, then brotli, as Accept-Encoding and its weights allow", () => {
    expect(negotiateEncoding("gzip, deflate, br, zstd")).toBe("gzip");
    expect(negotiateEncoding("br, zstd")).toBe("br");
    expect(negotiateEncoding("gzip;q=0, br")).toBe("br");
    expect(negotiateEncoding("GZIP")).toBe("gzip");
    expect(negotiateEncoding("*")).toBe("gzip");
    expect(negotiateEncoding("*;q=0, br;q=0.5")).toBe("br");
    expect(negotiateEncoding("gzip, br", ["br", "gzip"])).toBe("br");
    expect(negotiateEncoding("identity")).toBeNull();
    expect(negotiateEncoding("deflate")).toBeNull();
    expect(negotiateEncoding(undefined)).toBeNull();
  });

  test("a body written in pieces streams: each piece reaches the browser before the next is written", async () => {
    let writeTheRest!: () => void;
    const rest = new Promise<void>((resolve) => (writeTheRest = resolve));
    const rows = (n: number) => new TextEncoder().encode(`row ${n},${"x".repeat(600)}\n`);
    const app = new Hono();
    app.use(compression());
    app.get("/download.csv", (c) =>
      c.body(
        new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(rows(1));
            controller.enqueue(rows(2));
            await rest;
            controller.enqueue(rows(3));
            controller.close();
          },
        }),
        200,
        { "content-type": "text/csv" },
      ));

    const res = await app.request("/download.csv", { headers: { "accept-encoding": "br" } });
    expect(res.headers.get("content-encoding")).toBe("br");
    expect(res.headers.get("content-length")).toBeNull();

    const decoder = createBrotliDecompress();
    let text = "";
    decoder.on("data", (piece: Uint8Array) => (text += new TextDecoder().decode(piece)));
    const reader = res.body!.getReader();
    const receive = async () => {
      const { value } = await reader.read();
      await new Promise<void>((done) => decoder.write(value!, () => done()));
    };
    while (!text.includes("row 2")) await receive();
    expect(text).not.toContain("row 3");

    writeTheRest();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      await new Promise<void>((done) => decoder.write(value, () => done()));
    }
    await new Promise<void>((done) => decoder.end(() => done()));
    expect(text.split("\n").filter(Boolean).map((row) => row.split(",")[0])).toEqual(["row 1", "row 2", "row 3"]);
  });

  test("an answer that says no-transform, or is already encoded, is left as it is", async () => {
    const big = "y".repeat(5000);
    const app = new Hono();
    app.use(compression());
    app.get("/raw", (c) => c.text(big, 200, { "cache-control": "no-transform" }));
    app.get("/encoded", (c) => c.body(big, 200, { "content-type": "text/plain", "content-encoding": "gzip" }));
    for (const path of ["/raw", "/encoded"]) {
      const res = await app.request(path, { headers: { "accept-encoding": "br" } });
      expect(await res.text()).toBe(big);
      expect(res.headers.get("content-encoding") ?? "", path).not.toBe("br");
    }
  });
});
