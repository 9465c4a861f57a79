import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ENTRY_ISLANDS } from "../../lib/entry-islands.ts";

/** One entry of Vite's build manifest (dist/.vite/manifest.json). */
interface ManifestChunk {
  file: string;
  css?: string[];
  imports?: string[];
  dynamicImports?: string[];
  isEntry?: boolean;
  isDynamicEntry?: boolean;
}
type Manifest = Record<string, ManifestChunk>;

/** The client entry that hydrates islands, and the stylesheet every page links. */
export const CLIENT_ENTRY = "islands/client.ts";
export const STYLESHEET = "islands/styles.css";

/**
 * What the server needs to know about the Vite build: the stylesheet, the hydration entry, and for
 * each island its module and the chunks to preload. Only the chunks of the islands a page used are
 * preloaded.
 */
export interface Assets {
  stylesheet: string;
  entry: string;
  /** Every module a page with these islands needs, entry first, without duplicates. */
  modulesFor(islandNames: Iterable<string>): string[];
  /**
   * The module of one island (islands/Avatar.tsx for "Avatar"): what the hydration entry imports.
   * "" for the layouts' islands, which come with the entry (lib/entry-islands.ts).
   */
  moduleOf(islandName: string): string;
  islandNames: string[];
}

export function loadAssets(distDir: string): Assets {
  const manifestPath = join(distDir, ".vite", "manifest.json");
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  } catch (cause) {
    throw new Error(
      `The island build is missing (${manifestPath}). Run "deno task build" (deno task start does it for you).`,
      { cause },
    );
  }
  return assetsFromManifest(manifest);
}

export function assetsFromManifest(manifest: Manifest): Assets {
  const url = (file: string) => `/${file}`;
  const chunk = (key: string) => {
    const found = manifest[key];
    if (!found) throw new Error(`"${key}" is not in the island build; run "deno task build".`);
    return found;
  };
  const closure = (key: string, seen: Set<string>, out: string[]) => {
    if (seen.has(key)) return;
    seen.add(key);
    const c = chunk(key);
    out.push(url(c.file));
    for (const imported of c.imports ?? []) closure(imported, seen, out);
  };
  // Each island file is an entry of the build (vite.config.ts).
  const islandNames = Object.keys(manifest)
    .filter((key) =>
      (manifest[key].isEntry || manifest[key].isDynamicEntry) && /^islands\/[A-Z][A-Za-z]*\.tsx$/.test(key)
    )
    .map((key) => key.slice("islands/".length, -".tsx".length));

  const inEntry = new Set<string>(ENTRY_ISLANDS);
  const memo = new Map<string, string[]>();
  return {
    stylesheet: url(chunk(STYLESHEET).file),
    entry: url(chunk(CLIENT_ENTRY).file),
    islandNames,
    moduleOf: (name) => (inEntry.has(name) ? "" : url(chunk(`islands/${name}.tsx`).file)),
    modulesFor(names) {
      // A page's set of islands recurs on every request: the walk of the manifest is done once.
      const key = [...names].sort().join(",");
      let out = memo.get(key);
      if (!out) {
        const seen = new Set<string>();
        out = [];
        closure(CLIENT_ENTRY, seen, out);
        for (const name of names) if (!inEntry.has(name)) closure(`islands/${name}.tsx`, seen, out);
        memo.set(key, out);
      }
      return out;
    },
  };
}
