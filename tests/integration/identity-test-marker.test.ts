import { describe, expect, test } from "vitest";
import { makeUser, testApp } from "../helpers/app.ts";

/**
 * Whenever the sandbox identity provider runs, the identity screen says it is a test check, in
 * words a customer understands (decision 023); with Sumsub it says nothing of the kind.
 */
const waiting = makeUser({ identity: false, account: false, account_ref: null });

describe("the identity screen", () => {
  test("with the sandbox: a test check, said in the page's heading area, before any island runs", async () => {
    const t = await testApp();
    t.signIn(waiting);
    const res = await t.app.request("/identity");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/<p[^>]*role="note"[^>]*><strong>Test identity check\.<\/strong>/);
    expect(html).toMatch(/nobody checks your documents/);
  });

  test("with Sumsub: no test marker", async () => {
    const t = await testApp({ env: { SUMSUB_APP_TOKEN: "token", SUMSUB_SECRET_KEY: "key" } });
    t.signIn(waiting);
    const html = await (await t.app.request("/identity")).text();
    expect(html).not.toMatch(/Test identity check/);
  });
});
