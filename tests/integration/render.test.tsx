import { Hono } from "hono";
import { beforeAll, describe, expect, test } from "vitest";
import { deserializeProps } from "../../lib/serialize.ts";
import { Avatar } from "../../routes/islands.ts";
import type { AppEnv } from "../../server/env.ts";
import { assetsFromManifest, loadAssets } from "../../server/render/assets.ts";
import { renderDocument } from "../../server/render/document.tsx";
import { makeAdmin, makeUser, type TestApp, testApp } from "../helpers/app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});

const scriptsOf = (html: string) => [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);

describe("islands on a page", () => {
  test("a page with islands has one data block with every island's props, and one module script", async () => {
    // A screen whose own content has no island (one pricing plan, drawn on the server: the default
    // plan is written at start): only the layout's islands remain.
    t.signIn(makeAdmin({ name: "Ada <b>Lovelace</b>" }));
    const res = await t.app.request("/console/pricingplan/1");
    expect(res.status).toBe(200);
    const html = await res.text();
    const blocks = html.match(/<script type="application\/json" id="__islands">([^<]*)<\/script>/g) ?? [];
    expect(blocks).toHaveLength(1);
    expect(scriptsOf(html).filter((s) => s.includes('type="module"'))).toHaveLength(1);
    const json = /id="__islands">([^<]*)</.exec(html)![1];
    const islands = deserializeProps<{ id: string; name: string; props: Record<string, unknown> }[]>(json);
    expect(islands.map((i) => i.name).sort()).toEqual(["ColorModeToggle", "NotificationQueue"]);
    // Signing out is a plain form: no script needed.
    expect(html).toContain('<form action="/logout" method="post">');
    // The user's name is text in the page, escaped, never markup.
    expect(html).toContain("Ada &lt;b&gt;Lovelace&lt;/b&gt;");
    for (const { id } of islands) expect(html).toContain(`data-island="${id}"`);
  });

  test("only the chunks of the islands the page used are preloaded", async () => {
    t.signIn(null);
    const home = await (await t.app.request("/")).text();
    t.signIn(makeUser());
    const account = await (await t.app.request("/console/admins")).text();
    const preloads = (html: string) => [...html.matchAll(/rel="modulepreload" href="([^"]+)"/g)].map((m) => m[1]);
    expect(preloads(home).some((href) => href.includes("/LoginForm-"))).toBe(true);
    expect(preloads(account).some((href) => href.includes("/LoginForm-"))).toBe(false);
    // The layouts' islands come with the hydration entry: no module of their own.
    expect(preloads(home).some((href) => href.includes("/ColorModeToggle-"))).toBe(false);
    const islands = deserializeProps<{ name: string; src: string }[]>(/id="__islands">([^<]*)</.exec(home)![1]);
    expect(islands.find((i) => i.name === "LoginForm")?.src).toMatch(/^\/assets\/LoginForm-[\w-]+\.js$/);
    expect(preloads(home)).toContain(islands.find((i) => i.name === "LoginForm")?.src);
    expect(islands.find((i) => i.name === "ColorModeToggle")?.src).toBe("");
  });

  test("the stylesheet comes before the islands' modules: they are preloaded at low priority, so the page paints first", async () => {
    t.signIn(null);
    const home = await (await t.app.request("/")).text();
    const links = [...home.matchAll(/<link rel="(stylesheet|modulepreload)"[^>]*>/g)].map((m) => m[0]);
    expect(links[0]).toContain('rel="stylesheet"');
    expect(links.length).toBeGreaterThan(1);
    for (const link of links.slice(1)) expect(link).toContain('fetchpriority="low"');
  });

  test("the manifest: each island's module and what it imports; the layouts' islands come with the entry", () => {
    const assets = assetsFromManifest({
      "islands/client.ts": { file: "assets/client-A.js", isEntry: true },
      "islands/styles.css": { file: "assets/styles-B.css", isEntry: true },
      "islands/LoginForm.tsx": {
        file: "assets/LoginForm-C.js",
        isEntry: true,
        imports: ["_auth-forms-D.js", "islands/client.ts"],
      },
      "_auth-forms-D.js": { file: "assets/auth-forms-D.js", imports: ["islands/client.ts"] },
    });
    expect(assets.islandNames).toEqual(["LoginForm"]);
    expect(assets.moduleOf("LoginForm")).toBe("/assets/LoginForm-C.js");
    expect(assets.moduleOf("NotificationQueue")).toBe("");
    expect(assets.modulesFor(["NotificationQueue", "ColorModeToggle", "LoginForm"])).toEqual([
      "/assets/client-A.js",
      "/assets/LoginForm-C.js",
      "/assets/auth-forms-D.js",
    ]);
    expect(() => assets.moduleOf("Nowhere")).toThrow(/not in the island build/);
  });

  test("a page whose islands are none ships no script at all", async () => {
    const app = new Hono<AppEnv>();
    app.use(async (c, next) => {
      c.set(
        "assets",
        assetsFromManifest({
          "islands/client.ts": { file: "assets/client.js", isEntry: true },
          "islands/styles.css": { file: "assets/styles.css", isEntry: true },
        }),
      );
      c.set("user", null);
      await next();
    });
    app.get("/plain", (c) => renderDocument(c, { title: "Plain", render: () => <p>No islands here</p> }));
    const html = await (await app.request("/plain")).text();
    expect(html).toContain("No islands here");
    expect(html).not.toContain("<script");
    expect(html).not.toContain("modulepreload");
    expect(html).toContain('<link rel="stylesheet" href="/assets/styles.css">');
  });

  test("island props survive the serializer: dates, big integers and markup in text", async () => {
    const when = new Date("2026-11-22T10:00:00Z");
    const Probe = Avatar as unknown as (p: Record<string, unknown>) => null;
    const app = new Hono<AppEnv>();
    app.use(async (c, next) => {
      c.set("assets", loadAssets("dist"));
      c.set("user", null);
      await next();
    });
    app.get(
      "/probe",
      (c) =>
        renderDocument(c, {
          title: "Probe",
          render: () => (
            <Probe alt="</script><script>alert(1)</script>" src={null} when={when} n={12345678901234567890n} />
          ),
        }),
    );
    const html = await (await app.request("/probe")).text();
    expect(html).not.toContain("<script>alert(1)");
    const json = /id="__islands">([^<]*)</.exec(html)![1];
    const [island] = deserializeProps<{ props: { when: Date; n: bigint; alt: string } }[]>(json);
    expect(island.props.when).toEqual(when);
    expect(island.props.n).toBe(12345678901234567890n);
    expect(island.props.alt).toBe("</script><script>alert(1)</script>");
  });
  test("an island given a function prop fails the page's render, naming the island and the prop", async () => {
    const Probe = Avatar as unknown as (p: Record<string, unknown>) => null;
    const app = new Hono<AppEnv>();
    let failure: unknown;
    app.use(async (c, next) => {
      c.set("assets", loadAssets("dist"));
      c.set("user", null);
      await next();
    });
    app.onError((error, c) => {
      failure = error;
      return c.text("failed", 500);
    });
    app.get("/probe", (c) =>
      renderDocument(c, {
        title: "Probe",
        render: () => <Probe alt="A" src={null} onPick={function choose() {}} />,
      }));
    expect((await app.request("/probe")).status).toBe(500);
    expect(String(failure)).toContain("Island Avatar: props.onPick is a function (choose)");
  });
});

describe("the database", () => {
  test("runs in WAL mode with durable (FULL) commits", async () => {
    const mode = await t.db.$client.execute("PRAGMA journal_mode");
    const sync = await t.db.$client.execute("PRAGMA synchronous");
    expect(mode.rows[0].journal_mode).toBe("wal");
    expect(Number(sync.rows[0].synchronous)).toBe(2);
  });
});
