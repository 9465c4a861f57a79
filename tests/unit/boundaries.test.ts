import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { expect, test } from "vitest";

const ROOT = resolve(import.meta.dirname!, "../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx)$/.test(name) ? [path] : [];
  });
}

/** Every local module an island can reach, following imports from islands/. */
function reachableFrom(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (
      const m of text.matchAll(
        /(?:import|export)\s[^'"]*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g,
      )
    ) {
      visit(resolve(dirname(file), m[1] ?? m[2]));
    }
  };
  entries.forEach(visit);
  return seen;
}

test("islands never import server/ or db/ code, directly or through another module", () => {
  const reached = [...reachableFrom(sourceFiles(join(ROOT, "islands")))].map((f) => f.slice(ROOT.length + 1));
  const serverSide = reached.filter((f) => f.startsWith("server/") || f.startsWith("db/") || f.startsWith("routes/"));
  expect(reached.length).toBeGreaterThan(3);
  expect(serverSide).toEqual([]);
});
