import { Hono } from "hono";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { notBuilt, PAGES, registerPages } from "../../routes/pages.tsx";
import { ACCOUNT_NAV, CONSOLE_NAV } from "../../routes/layouts/User.tsx";
import type { AppEnv } from "../../server/env.ts";
import type { GuardName } from "../../lib/contracts/guards.ts";
import { makeAdmin, makeUser, type TestApp, testApp } from "../helpers/app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});

const get = (path: string, init?: RequestInit) => t.app.request(path, init);

/** Every route of SPEC.md section 2, with a sample id where the route has one. */
const PUBLIC = ["/", "/setup", "/forgot", "/register", "/calculator", "/verify", "/unsubscribe"];
const SIGNED_IN = [
  "/identity",
  "/register-business",
  "/register-personal",
  "/processing",
  "/second-factor",
  "/account-select",
];
const ACCOUNT = [
  "/account",
  "/account/users",
  "/account/convert",
  "/account/payment",
  "/account/reports",
  "/account/balances",
  "/account/ratealerts",
  "/account/transactions",
  "/account/payments",
  "/account/pendingpayments",
  "/account/pendingpayments/7",
  "/account/recipients",
  "/account/linked-accounts",
];
const CONSOLE = [
  "/console/local",
  "/console/transfer",
  "/console/users",
  "/console/users/7",
  "/console/admins",
  "/console/alerts",
  "/console/audit",
  "/console/partners",
  "/console/partners/7",
  "/console/receipts",
  "/console/referrals",
  "/console/affiliates",
  "/console/attributions",
  "/console/emails",
  "/console/emails/7",
  "/console/profitReports",
  "/console/migration",
  "/console/migration/7",
  "/console/bulkemails",
  "/console/bulkemails/7",
  "/console/pricingplan",
  "/console/pricingplan/7",
];

describe("a visitor who is not signed in", () => {
  test.each(PUBLIC)("sees the public page %s", async (path) => {
    t.signIn(null);
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
  });

  test.each([...SIGNED_IN, ...ACCOUNT, "/auth"])("is sent home from %s", async (path) => {
    t.signIn(null);
    const res = await get(path);
    expect(res.status).toBe(302);
    // The convert page, a payment's page and the rate alerts (where emails link) are remembered for
    // after signing in, so they send the visitor to the form itself (decision 068, amended).
    const remembered = ["/account/convert", "/account/pendingpayments/7", "/account/ratealerts"];
    expect(res.headers.get("location")).toBe(remembered.includes(path) ? "/#sign-in" : "/");
  });

  test.each(CONSOLE)("gets 'Page not found' from the console page %s", async (path) => {
    t.signIn(null);
    const res = await get(path);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("Page not found");
  });
});

/** Customer screens whose features come later: their frame and a plain "coming soon". */
const ACCOUNT_SOON = ACCOUNT.filter((p) =>
  ![
    "/account",
    "/account/convert",
    "/account/balances",
    "/account/recipients",
    "/account/ratealerts",
    "/account/users",
    "/account/linked-accounts",
    "/account/payment",
    "/account/reports",
    "/account/transactions",
    "/account/payments",
  ].includes(p) && !p.startsWith("/account/pendingpayments")
);

describe("a customer", () => {
  test.each(ACCOUNT_SOON)("sees %s in the user layout, with a plain 'coming soon' state", async (path) => {
    t.signIn(makeUser());
    const res = await get(path);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('data-layout="user"');
    expect(html).toContain('aria-label="Account"');
    expect(html).toContain("Coming soon");
  });

  test.each(CONSOLE)("cannot find the console page %s", async (path) => {
    t.signIn(makeUser());
    const res = await get(path);
    expect(res.status).toBe(404);
  });
});

describe("an administrator", () => {
  // A record's page (a customer, a pricing plan, a migration run, an email, a partner, a bulk email) exists
  // only for one that exists (none here): integration tests open real ones.
  test.each(
    CONSOLE.filter((p) =>
      ![
        "/console/users/7",
        "/console/pricingplan/7",
        "/console/migration/7",
        "/console/emails/7",
        "/console/partners/7",
        "/console/bulkemails/7",
      ].includes(p)
    ),
  )(
    "sees the console page %s",
    async (path) => {
      t.signIn(makeAdmin());
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('aria-label="Console"');
    },
  );

  test("who has not passed the second factor is sent to it", async () => {
    t.signIn(makeAdmin({ secondFactor: false }));
    const res = await get("/console/users");
    expect(res.headers.get("location")).toBe("/second-factor");
  });

  test("is sent from /auth to the console", async () => {
    t.signIn(makeAdmin());
    expect((await get("/auth")).headers.get("location")).toBe("/console/users");
  });
});

describe("layouts", () => {
  test("the calculator is on the blank layout: no site navigation", async () => {
    t.signIn(null);
    const html = await (await get("/calculator")).text();
    expect(html).not.toContain('aria-label="Site"');
    expect(html).toContain("Currency calculator");
  });

  test("registration screens show the onboarding steps", async () => {
    t.signIn(null);
    const html = await (await get("/register")).text();
    expect(html).toContain('aria-label="Onboarding steps"');
    expect(html).toMatch(/aria-current="step"[^>]*>1\. Account/);
  });

  test("the home page is on the default layout, with the site navigation", async () => {
    t.signIn(null);
    const html = await (await get("/")).text();
    expect(html).toContain('aria-label="Site"');
  });

  test.each(
    [
      ["default", "/", null],
      ["blank", "/calculator", null],
      ["register", "/register", null],
      ["user", "/account/security", makeUser],
    ] as const,
  )("the %s layout starts with 'Skip to content', to its <main id=\"main\">", async (_layout, path, who) => {
    t.signIn(who ? who() : null);
    const html = await (await get(path)).text();
    const body = html.slice(html.indexOf("<body"));
    // The first link or button of the page.
    expect(/<(a|button)\b[^>]*>[^<]*/.exec(body)?.[0]).toMatch(/^<a href="#main"[^>]*>Skip to content$/);
    expect(body).toMatch(/<main id="main"/);
  });

  test("the calculator's blank layout has a way home", async () => {
    t.signIn(null);
    expect(await (await get("/calculator")).text()).toMatch(/<header[^>]*>\s*<a href="\/"/);
  });

  test("the menus mark the links to screens not built yet 'Coming soon', and only those", async () => {
    const soon = notBuilt();
    // Derived from the rows: each renders ComingSoon, and a row given a real render drops out.
    for (const path of soon) {
      const page = PAGES.find((p) => p.path === path)!;
      t.signIn(path.startsWith("/console") ? makeAdmin() : makeUser());
      if (!path.includes(":")) expect(await (await get(path)).text()).toContain("Coming soon");
      expect(notBuilt([{ ...page, render: () => "built" }]).size).toBe(0);
    }
    const linkText = (html: string, href: string) =>
      new RegExp(`<a href="${href}" class="nav-link"[^>]*>(.*?)</a>`).exec(html)?.[1] ?? null;
    t.signIn(makeAdmin());
    const console = await (await get("/console/users")).text();
    for (const item of CONSOLE_NAV) {
      expect(linkText(console, item.href), item.href).toContain(item.label);
      expect(linkText(console, item.href)!.includes("Coming soon"), item.href).toBe(soon.has(item.href));
    }
    // A screen of the account that needs no records of its own.
    t.signIn(makeUser());
    const account = await (await get([...soon].find((p) => p.startsWith("/account/")) ?? "/account/security")).text();
    for (const item of ACCOUNT_NAV) {
      expect(linkText(account, item.href)!.includes("Coming soon"), item.href).toBe(soon.has(item.href));
    }
    expect(soon.has("/account/balances")).toBe(false);
  });
});

describe("/auth runs the guards in SPEC.md's order", () => {
  const cases: [string, Parameters<typeof makeUser>[0], string][] = [
    ["an unverified user", { validated: false, secondFactor: false, profile: false }, "/verify"],
    ["a verified user without the second factor", { secondFactor: false, profile: false }, "/second-factor"],
    ["a Personal user without a profile", { profile: false, identity: false }, "/register-personal"],
    ["a Business user without a profile", { type: "Business", profile: false }, "/register-business"],
    ["a user whose identity is not checked", { identity: false, account: false }, "/identity"],
    ["a user without an account", { account: false }, "/processing"],
    ["a user with everything done", {}, "/account"],
  ];
  test.each(cases)("%s goes to %s", async (_label, overrides, target) => {
    t.signIn(makeUser(overrides));
    const res = await get("/auth");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(target);
  });
});

describe("each guard sends the visitor where they belong", () => {
  const cases: [string, Parameters<typeof makeUser>[0], string][] = [
    ["/verify", { validated: true }, "/auth"], // a verified user has nothing to verify
    ["/register-personal", { profile: true }, "/auth"], // has-no-profile
    ["/register-personal", { profile: false, type: "Business" }, "/account"], // is-personal
    ["/register-business", { profile: false, type: "Personal" }, "/account"], // is-business
    ["/identity", { profile: false }, "/register-personal"], // has-profile
    ["/processing", { identity: false }, "/identity"], // identity-checked
    ["/account", { account: false }, "/processing"], // has-account
    ["/account-select", { secondFactor: false }, "/second-factor"], // secondfactor
    ["/identity", { validated: false }, "/verify"], // is-verified
  ];
  test.each(cases)("%s with %o goes to %s", async (path, overrides, target) => {
    t.signIn(makeUser(overrides));
    const res = await get(path);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(target);
  });

  test("a guard on a call answers JSON with the redirect instead of redirecting", async () => {
    const app = new Hono<AppEnv>();
    const { loggedin, hasAccount } = await import("../../server/guards.ts");
    const { errorHandlers } = await import("../../server/http/errors.tsx");
    const { ErrorPage } = await import("../../routes/pages/ErrorPage.tsx");
    app.use(async (c, next) => {
      c.set("user", makeUser({ account: false }));
      // Read to tell someone removed from every account (server/accounts/removed.ts) from a new customer.
      c.set("db", t.db);
      await next();
    });
    app.get("/api/thing", loggedin, hasAccount, (c) => c.json({ body: 1 }));
    app.onError(errorHandlers(ErrorPage).onError);
    const res = await app.request("/api/thing");
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      error: "You cannot do this yet.",
      message: "Forbidden",
      redirect: "/processing",
      request_id: expect.any(String),
    });
  });
});

describe("route validation", () => {
  test("a non-numeric id is the fatal 'Page not found' with the full path", async () => {
    t.signIn(makeAdmin());
    const res = await get("/console/users/abc?tab=notes");
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(html).toContain("Page not found");
    expect(html).toContain("/console/users/abc?tab=notes");
  });

  test("an unknown pricing plan id is 'Page not found'", async () => {
    t.signIn(makeAdmin());
    const res = await get("/console/pricingplan/7");
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("Page not found");
  });

  test("an unknown customer id is 'Page not found' with the full path", async () => {
    t.signIn(makeAdmin());
    const res = await get("/console/users/7");
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("/console/users/7");
  });

  test("a customer's pending payment id must be a positive number", async () => {
    t.signIn(makeUser());
    expect((await get("/account/pendingpayments/0")).status).toBe(404);
    expect((await get("/account/pendingpayments/abc")).status).toBe(404);
  });

  test("an unknown page is 'Page not found' with the full path", async () => {
    t.signIn(null);
    const res = await get("/no/such/page?from=mail");
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(html).toContain("Page not found");
    expect(html).toContain("/no/such/page?from=mail");
    expect(html).toContain('href="/"');
    expect(html).toContain("Back To Home Page");
  });

  test("an unknown guard name stops the server at start with a clear error", () => {
    const app = new Hono<AppEnv>();
    expect(() =>
      // The type check refuses the name already; a table built from untyped data is still checked at start.
      registerPages(app, [{
        path: "/x",
        title: "X",
        guards: ["loggedin", "is-wizard" as GuardName],
        render: () => null,
      }])
    )
      .toThrow('Unknown guard "is-wizard"');
  });

  test("a route that forces the 'system' colour mode is refused with a console warning", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    registerPages(new Hono<AppEnv>(), [{ path: "/x", title: "X", colorMode: "system", render: () => null }]);
    expect(warn).toHaveBeenCalled();
    expect(String(warn.mock.calls[0][0])).toMatch(/system/);
  });
});
