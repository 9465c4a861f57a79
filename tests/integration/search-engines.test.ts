import { describe, expect, test } from "vitest";
import { PAGES } from "../../routes/pages.tsx";
import { DEFAULT_DESCRIPTION } from "../../server/render/document.tsx";
import { makeUser, testApp } from "../helpers/app.ts";

/**
 * What search engines read (issue 9, Lighthouse's SEO audit): a public page says what it is in a
 * meta description; a page behind a guard, someone's own, tells them to keep out.
 */

const description = (html: string) => /<meta name="description" content="([^"]*)">/.exec(html)?.[1];
const noindex = (html: string) => html.includes('<meta name="robots" content="noindex, nofollow">');

describe("search engines", () => {
  test("the home page and the calculator have descriptions of their own, other public pages the portal's", async () => {
    const t = await testApp();
    const home = await (await t.app.request("/")).text();
    const calculator = await (await t.app.request("/calculator")).text();
    const forgot = await (await t.app.request("/forgot")).text();
    expect(description(home)).toBe(PAGES.find((p) => p.path === "/")!.description);
    expect(description(calculator)).toContain("What a conversion costs today");
    expect(description(forgot)).toBe(DEFAULT_DESCRIPTION);
    for (const html of [home, calculator, forgot]) expect(noindex(html)).toBe(false);
  });

  test("signed-in pages say noindex and carry no description", async () => {
    const t = await testApp();
    t.signIn(makeUser());
    const page = await t.app.request("/account/security");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(noindex(html)).toBe(true);
    expect(description(html)).toBeUndefined();
  });
});
