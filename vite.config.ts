import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";

/**
 * Builds the browser side only: the hydration entry, one chunk per island (each listed in the
 * manifest the server reads), and the stylesheet. The server itself runs from source under Deno.
 *
 * The budget (docs/PERFORMANCE.md) counts every script a page loads, each gzipped on its own.
 * React is most of it, and gzip cannot share a dictionary between files: a few larger files that
 * hold code used together ship fewer bytes than many small ones. Hence the chunking below.
 */

/**
 * The code of the shared chunk, beside React: the hydration entry, the layouts' own islands
 * (the notification queue and the colour-mode control, on every page that has islands) and the
 * helpers that (nearly) every island uses. A module that only some pages need stays out of it,
 * in its island's chunk.
 */
const SHARED = [
  "/islands/client.ts",
  "/islands/NotificationQueue.tsx",
  "/islands/ColorModeToggle.tsx",
  "/islands/lib/api.ts",
  "/islands/lib/batch.ts",
  "/islands/lib/color-mode.ts",
  "/islands/lib/forms.tsx",
  "/islands/lib/notifications.ts",
  "/islands/lib/query-string.ts",
  "/islands/lib/user-store.ts",
  "/lib/api-types.ts",
  "/lib/color-mode.ts",
  "/lib/constants.ts",
  "/lib/serialize.ts",
];

/** Islands that are always rendered together on one page: one chunk for the page, not one each. */
const TOGETHER: Record<string, string[]> = {
  "ConsolePricing": ["/islands/ConsolePricingPlans.tsx", "/islands/ConsoleRates.tsx"],
};

const shared = (id: string) => id.includes("node_modules") || SHARED.some((path) => id.endsWith(path));

/**
 * Vite wraps every dynamic import in a helper that first preloads the imported chunk's own imports
 * and CSS. Here the server already writes a modulepreload link for every chunk a page needs and no
 * island imports CSS, so with modulePreload off the helper is always called with nothing to
 * preload: it is replaced by a pass-through (a failed import still rejects, and client.ts handles
 * that). Should Vite rename its helper module, this simply stops applying and the build is as
 * before, only larger.
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

export default defineConfig({
  plugins: [passThroughPreloadHelper(), react(), tailwindcss()],
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
      input: ["islands/client.ts", "islands/styles.css"],
      output: {
        codeSplitting: {
          groups: [
            // First, so that what it holds (and what that imports) is never pulled into another.
            { name: "client", test: shared, priority: 2 },
            ...Object.entries(TOGETHER).map(([name, paths]) => ({
              name,
              test: (id: string) => paths.some((path) => id.endsWith(path)),
              priority: 1,
            })),
          ],
        },
      },
    },
  },
});
