import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, test } from "vitest";

/**
 * The lines between the parts of the code (docs/ARCHITECTURE.md): the browser's code never reaches
 * the server's, the server's machinery never reaches the pages and calls it serves (the composition
 * root, app.ts, puts them together), and lib/ is shared by both sides, so it reaches neither.
 */

const ROOT = resolve(import.meta.dirname!, "../..");
const relative = (file: string) => file.slice(ROOT.length + 1);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx)$/.test(name) ? [path] : [];
  });
}

interface Import {
  /** The module imported, as an absolute path. */
  file: string;
  /** `import type ...` or `export type ...`: erased from the JavaScript, nothing loaded at run time. */
  typeOnly: boolean;
  statement: string;
}

/** The local modules a file imports (static, dynamic, re-exports and side-effect imports). */
function importsOf(file: string): Import[] {
  const text = readFileSync(file, "utf8");
  const found: Import[] = [];
  const patterns = [
    /(?:^|\n)\s*(import|export)(\s+type)?\s[^'"]*?from\s+["'](\.[^"']+)["']/g,
    /(?:^|\n)\s*(import)()\s+["'](\.[^"']+)["']/g,
    /(import)()\(\s*["'](\.[^"']+)["']\s*\)/g,
  ];
  for (const pattern of patterns) {
    for (const m of text.matchAll(pattern)) {
      found.push({ file: resolve(dirname(file), m[3]), typeOnly: !!m[2], statement: m[0].trim() });
    }
  }
  return found;
}

/** Every local module reachable from the entries by following imports, type-only ones too. */
function reachableFrom(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imported of importsOf(file)) visit(imported.file);
  };
  entries.forEach(visit);
  return seen;
}

/**
 * The imports by which the code under `dir` reaches one of the `forbidden` parts, directly or
 * through another module: each as "where: the import statement".
 */
function crossings(dir: string, forbidden: string[]): string[] {
  const inForbidden = (file: string) => forbidden.some((part) => relative(file).startsWith(`${part}/`));
  return [...reachableFrom(sourceFiles(join(ROOT, dir)))].filter((file) => !inForbidden(file)).flatMap((file) =>
    importsOf(file).filter((i) => inForbidden(i.file)).map((i) => `${relative(file)}: ${i.statement}`)
  );
}

describe("the boundaries between the parts", () => {
  test("the import scan sees the imports it is meant to hold (it reads this tree, not nothing)", () => {
    const files = ["islands", "server", "lib"].map((dir) => sourceFiles(join(ROOT, dir)).length);
    expect(Math.min(...files)).toBeGreaterThan(3);
    const app = importsOf(join(ROOT, "app.ts")).map((i) => relative(i.file));
    expect(app).toContain("routes/pages.tsx");
    expect(app).toContain("server/http/errors.tsx");
  });

  test("islands never import server/, db/ or routes/ code, directly or through another module", () => {
    expect(crossings("islands", ["server", "db", "routes"])).toEqual([]);
  });

  test("server/ never imports routes/ or islands/: the composition root (app.ts) puts them together", () => {
    expect(crossings("server", ["routes", "islands"])).toEqual([]);
  });

  test("lib/, shared by the browser and the server, imports neither side: not server/, db/, routes/ or islands/", () => {
    expect(crossings("lib", ["server", "db", "routes", "islands"])).toEqual([]);
  });

  test("islands take lib/contracts with `import type` only, so zod never reaches the browser through a contract", () => {
    const browser = [...reachableFrom(sourceFiles(join(ROOT, "islands")))].filter((f) =>
      !f.includes("/lib/contracts/")
    );
    const loaded = browser.flatMap((file) =>
      importsOf(file)
        .filter((i) => relative(i.file).startsWith("lib/contracts/") && !i.typeOnly)
        .map((i) => `${relative(file)}: ${i.statement}`)
    );
    expect(loaded).toEqual([]);
  });
});
