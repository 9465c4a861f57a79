import { afterEach, beforeAll, describe, expect, test } from "vitest";
import { redirects } from "../../db/schema.ts";
import { VERSIONS_MAX_AGE_MS } from "../../server/data-versions.ts";
import { captureLog } from "../../server/log.ts";
import { createApp } from "../../app.ts";
import { Draining } from "../../server/http/draining.ts";
import { loadAssets } from "../../server/render/assets.ts";
import { PUBLIC_PAGE_SCRIPT_SRC } from "../../server/http/security.ts";
import { INDICATIVE_RATES } from "../../server/money/rates.ts";
import { saveRates } from "../../server/money/store.ts";
import { signinApp } from "../helpers/client.ts";
import { openCustomer } from "../helpers/money.ts";

/**
 * A public page kept for every visitor (decision 058): its whole answer is kept after the first
 * visitor's and sent again, already compressed, before the session and the render, while what it
 * shows is unchanged; a visitor with a session or a notification waiting gets a page of their own.
 */

let t: Awaited<ReturnType<typeof signinApp>>;
beforeAll(async () => {
  t = await signinApp();
});

const visit = (path: string, headers: Record<string, string> = {}) =>
  t.app.request(path, { headers: { "accept-encoding": "br, gzip", ...headers } });

describe("a public page kept for every visitor", () => {
  test("the next visitor gets the first one's answer, to the byte, with the site's own scripts only", async () => {
    // The first visitor's page is compressed as it goes out, and kept; the next ones get that.
    const first = await visit("/calculator");
    const second = await visit("/calculator");
    const third = await visit("/calculator");
    expect([first, second, third].map((res) => res.headers.get("content-encoding"))).toEqual(["gzip", "br", "br"]);
    expect(new Uint8Array(await third.arrayBuffer())).toEqual(new Uint8Array(await second.arrayBuffer()));
    const csp = second.headers.get("content-security-policy") ?? "";
    expect(csp).toContain(`${PUBLIC_PAGE_SCRIPT_SRC};`);
    expect(csp).not.toContain("nonce-");
    // Every header a page has is on it, each answer its own request id.
    expect(second.headers.get("x-frame-options")).toBe("DENY");
    expect(second.headers.get("vary")).toMatch(/accept-encoding/i);
    expect(second.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    // Rendered for a visitor: the entry loads it anew if this browser signs in since (decision 069).
    expect(await (await visit("/calculator", { "accept-encoding": "identity" })).text()).toMatch(
      /<html [^>]*data-visitor>/,
    );
  });

  test("new rates reach the next visitor within a second, and that page is kept in turn", async () => {
    const page = async () => await (await t.app.request("/calculator")).text();
    expect(await page()).not.toContain("Rates as of 2031-03-01");
    await saveRates(t.db, { ...INDICATIVE_RATES, as_of: "2031-03-01", source: "admin" }, null);
    t.clock.advance(VERSIONS_MAX_AGE_MS);
    expect(await page()).toContain("Rates as of 2031-03-01");
    expect((await visit("/calculator")).headers.get("content-encoding")).toBe("br");
    expect(await page()).toContain("Rates as of 2031-03-01");
  });

  test("a signed-in customer gets a page of their own, with this answer's nonce", async () => {
    await visit("/");
    const customer = await openCustomer(t);
    const res = await t.app.request("/", { headers: { cookie: `session=${customer.client.cookie("session")}` } });
    const html = await res.text();
    const nonce = /'nonce-([^']+)'/.exec(res.headers.get("content-security-policy") ?? "")?.[1];
    expect(nonce).toBeTruthy();
    expect(html).toContain(`nonce="${nonce}"`);
    expect(html).not.toContain('href="/register"');
    expect(html).not.toContain("data-visitor");
  });

  test("a visitor with a notification waiting gets the page rendered for them", async () => {
    await visit("/");
    const res = await t.app.request("/", { headers: { cookie: "flash=%5B%5D" } });
    expect(res.headers.get("content-security-policy")).toMatch(/'nonce-/);
  });

  test("a notice or a session sent with a space before '=' is still that visitor's, never kept for the next", async () => {
    // The cookies' readers (getCookie) take "flash =…" as the flash cookie: so must the cache.
    const notice = [{ id: "x", title: "Call 0800 000 000 to unlock your account", color: "info" }];
    await visit("/?offer=flash", { cookie: `flash =${encodeURIComponent(JSON.stringify(notice))}` });
    expect(await (await visit("/?offer=flash", { "accept-encoding": "identity" })).text()).not.toContain(
      "Call 0800 000 000",
    );
    // A session cookie naming no session queues "Your session was ended" for that visitor's page.
    await visit("/?offer=session", { cookie: "session =no-such-session" });
    expect(await (await visit("/?offer=session", { "accept-encoding": "identity" })).text()).not.toContain(
      "Your session was ended",
    );
  });

  test("a redirect an operator adds for it is followed, not the kept page", async () => {
    await visit("/calculator");
    expect((await visit("/calculator")).status).toBe(200);
    await t.db.insert(redirects).values({ path: "/calculator", target: "/register" });
    // The redirects table is read again within its few seconds (server/http/redirects.ts), on the
    // app's clock.
    t.clock.advance(60_000);
    const res = await visit("/calculator");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/register");
    // The table is loaded now: the front door, which would have the kept page, leaves it to the redirect.
    expect((await visit("/calculator")).status).toBe(302);
  });
});

describe("a kept answer, sent before the app's layers (decision 059)", () => {
  const TOKEN = "metrics-token-of-this-test-0123456789";
  let restore: (() => void) | null = null;
  afterEach(() => {
    restore?.();
    restore = null;
  });

  test("is logged with its own request id and counted in the metrics, as every answer is", async () => {
    const app = (await signinApp({ env: { METRICS_TOKEN: TOKEN } })).app;
    const visitOnce = () => app.request("/calculator?from=GBP", { headers: { "accept-encoding": "br, gzip" } });
    await visitOnce();
    const lines: Record<string, unknown>[] = [];
    restore = captureLog((line) => lines.push(JSON.parse(line)), "info");
    const kept = await visitOnce();
    // Brotli: the kept answer (an answer made through the layers is compressed with gzip).
    expect(kept.headers.get("content-encoding")).toBe("br");
    const id = kept.headers.get("x-request-id");
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(lines).toEqual([expect.objectContaining({
      msg: "request",
      request_id: id,
      method: "GET",
      route: "/calculator",
      path: "/calculator",
      status: 200,
    })]);
    const metrics = await (await app.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    expect(metrics).toContain('portal_http_requests_total{method="GET",route="/calculator",status="200"} 2');
  });

  test("counts a crafted fragment under its route, not as a series of its own", async () => {
    const app = (await signinApp({ env: { METRICS_TOKEN: TOKEN } })).app;
    for (const path of ["/calculator#a", "/calculator#a", "/calculator#b", "/calculator#b"]) await app.request(path);
    const metrics = await (await app.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    expect(metrics).toContain('portal_http_requests_total{method="GET",route="/calculator",status="200"} 4');
    expect(metrics).not.toContain("#a");
  });

  test("is refused, like every request, once the portal is stopping", async () => {
    const t = await signinApp();
    const draining = new Draining();
    const app = createApp({
      db: t.db,
      config: t.config,
      assets: loadAssets(t.config.distDir),
      services: t.services,
      draining,
    });
    const visit = () => app.request("/calculator", { headers: { "accept-encoding": "br, gzip" } });
    await visit();
    expect((await visit()).headers.get("content-encoding")).toBe("br");
    const lines: Record<string, unknown>[] = [];
    restore = captureLog((line) => lines.push(JSON.parse(line)), "info");
    void draining.drain(1000);
    const refused = await visit();
    expect(refused.status).toBe(503);
    expect(refused.headers.get("connection")).toBe("close");
    expect(lines).toEqual([expect.objectContaining({ msg: "request failed", route: "/calculator", status: 503 })]);
  });

  test("is not sent for a path with escapes: the router decodes it, and the page goes through every layer", async () => {
    const app = (await signinApp()).app;
    const encodingOf = async (path: string) =>
      (await app.request(path, { headers: { "accept-encoding": "br, gzip" } })).headers.get("content-encoding");
    // Kept answers go out as brotli; an answer made through the layers is compressed with gzip.
    for (const path of ["/calculator?q=%41", "/calcul%61tor"]) await encodingOf(path);
    expect(await encodingOf("/calculator?q=%41")).toBe("br");
    expect(await encodingOf("/calcul%61tor")).toBe("gzip");
  });
});
