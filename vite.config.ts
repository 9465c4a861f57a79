import { readdirSync } from "node:fs";
import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";
import { ENTRY_ISLANDS } from "./lib/entry-islands.ts";

/**
 * Builds the browser side only: the hydration entry, one entry per island (each listed in the
 * manifest the server reads: the server names each island's module in the page's data block, so
 * the hydration entry holds no list of islands), and the stylesheet. The server itself runs from
 * source under Deno. (A new island file joins at the next build: restart deno task dev for it.)
 *
 * The budget (docs/PERFORMANCE.md) counts every script a page loads, each gzipped on its own.
 * React is most of it, and gzip cannot share a dictionary between files: a few larger files that
 * hold code used together ship fewer bytes than many small ones. Hence the chunking below.
 */

/**
 * The code of the shared chunk, beside React: the hydration entry (with the layouts' own islands,
 * the notification queue and the colour-mode control, on every page that has islands) and the
 * helpers that (nearly) every island uses. A module that only some pages need stays out of it,
 * in its island's chunk.
 */
const SHARED = [
  "/islands/client.ts",
  ...ENTRY_ISLANDS.map((name) => `/islands/${name}.tsx`),
  "/islands/lib/api.ts",
  "/islands/lib/carried-notification.ts",
  "/islands/lib/color-mode.ts",
  "/islands/lib/notification-store.ts",
  "/islands/lib/notify-event.ts",
  "/islands/lib/query-string.ts",
  "/islands/lib/user-store.ts",
  "/lib/api-types.ts",
  "/lib/color-mode.ts",
  "/lib/constants.ts",
  "/lib/serialize.ts",
  // The pass-through that stands for Vite's preload helper (below): islands that load a part on
  // demand share it, and a chunk of its own for a one-line function would be one more request.
  "vite/preload-helper.js",
];

/**
 * The kit: TanStack Query, the page's query client and the UI pieces (islands/ui) that every island
 * but the layouts' uses. A chunk of its own, so a page whose only islands are the layouts' (the
 * notification queue, the colour-mode control) does not load it.
 */
const KIT = [
  "/node_modules/@tanstack/",
  "/islands/ui/",
  "/islands/lib/query-client.tsx",
  "/islands/lib/query-keys.ts",
  "/islands/lib/write.ts",
];
const inKit = (id: string) => KIT.some((path) => id.includes(path));

/** Modules that are loaded together: one chunk for them, not one each. */
const TOGETHER: Record<string, string[]> = {
  // The pricing page's two islands.
  "ConsolePricing": ["/islands/ConsolePricingPlans.tsx", "/islands/ConsoleRates.tsx"],
  // The banner of on-behalf mode (on every page in that mode) and its state, which the console's
  // customer list also uses to start the mode.
  "OnBehalf": ["/islands/OnBehalfBanner.tsx", "/islands/lib/on-behalf.ts"],
};

/** islands/Avatar.tsx and the like: every island but the layouts', which come with client.ts. */
const ISLANDS = readdirSync(new URL("./islands", import.meta.url))
  .filter((name) =>
    /^[A-Z][A-Za-z]*\.tsx$/.test(name) && !(ENTRY_ISLANDS as readonly string[]).includes(name.slice(0, -4))
  )
  .map((name) => `islands/${name}`);

/**
 * Libraries only the islands that check bank details use (lib/bank-details/): about 4.6 KB of gzip
 * that would otherwise ride on every page. They stay with their islands (decision 029).
 */
const BANK_DETAIL_LIBRARIES = ["/node_modules/ibantools/", "/node_modules/abavalidator/"];
const ownChunk = (id: string) => BANK_DETAIL_LIBRARIES.some((path) => id.includes(path));

const shared = (id: string) =>
  !inKit(id) && !ownChunk(id) && (id.includes("node_modules") || SHARED.some((path) => id.endsWith(path)));

/**
 * Vite wraps a dynamic import (an island's part loaded on demand, such as the plan editor) in a
 * helper that first preloads the imported chunk's own imports and CSS. With modulePreload off and
 * no CSS in the islands it has nothing to preload, ever: it is replaced by a pass-through (a failed
 * import still rejects). Should Vite rename its helper module, this simply stops applying and the
 * build is as before, only larger.
 */
function passThroughPreloadHelper(): Plugin {
  const helper = "\0vite/preload-helper.js";
  return {
    name: "portal:pass-through-preload-helper",
    enforce: "pre",
    apply: "build",
    resolveId: (id) => (id === helper ? helper : undefined),
    load: (id) => (id === helper ? "export const __vitePreload = (load) => load();" : undefined),
  };
}

/**
 * The islands are written against React's API and import react; in the browser they run on
 * preact/compat (decision 033): about 4 KB of runtime instead of about 60 KB, for the same code.
 * The server still renders with react-dom/server, and the unit tests still run the islands on
 * React. Only the browser build (and deno task dev, which is that build watching) is aliased.
 */
function reactAsPreactCompat(): Plugin {
  return {
    name: "portal:react-as-preact-compat",
    config: () => ({
      resolve: {
        alias: [
          { find: /^react-dom\/client$/, replacement: "preact/compat/client" },
          { find: /^react\/jsx-(dev-)?runtime$/, replacement: "preact/jsx-runtime" },
          { find: /^react-dom$/, replacement: "preact/compat" },
          { find: /^react$/, replacement: "preact/compat" },
        ],
      },
    }),
  };
}

export default defineConfig({
  plugins: [passThroughPreloadHelper(), reactAsPreactCompat(), react(), tailwindcss()],
  cacheDir: "node_modules/.vite",
  publicDir: false,
  define: { "process.env.NODE_ENV": JSON.stringify(process.env.NODE_ENV ?? "production") },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    manifest: true,
    assetsDir: "assets",
    sourcemap: false,
    target: "es2022",
    modulePreload: false,
    rollupOptions: {
      input: ["islands/client.ts", "islands/styles.css", ...ISLANDS],
      // An island's module keeps its exports (the hydration entry imports its default export); it
      // may carry more, so that a group's chunk can be its island's module without a facade.
      preserveEntrySignatures: "allow-extension",
      output: {
        codeSplitting: {
          groups: [
            // First, so that what it holds (and what that imports) is never pulled into another.
            { name: "client", test: shared, priority: 2 },
            { name: "kit", test: inKit, priority: 1.8 },
            // Any other helper of islands/lib that several modules use keeps a chunk of its own,
            // rather than being pulled into a group below with one of its users.
            {
              debugName: "islands/lib",
              name: (id: string, context: { getModuleInfo(id: string): { importers: readonly string[] } | null }) => {
                const helper = /\/islands\/lib\/([\w-]+)\.tsx?$/.exec(id)?.[1];
                return helper && (context.getModuleInfo(id)?.importers.length ?? 0) > 1 ? helper : null;
              },
              test: (id: string) => !Object.values(TOGETHER).flat().some((path) => id.endsWith(path)),
              // Each helper on its own: what it imports from another helper stays there.
              includeDependenciesRecursively: false,
              priority: 1.5,
            },
            ...Object.entries(TOGETHER).map(([name, paths]) => ({
              name,
              test: (id: string) => paths.some((path) => id.endsWith(path)),
              // Only the modules named: what they import from elsewhere is not theirs to carry.
              includeDependenciesRecursively: false,
              priority: 1,
            })),
          ],
        },
      },
    },
  },
});
