import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/**
 * Builds the browser side only: the hydration entry, one chunk per island (each listed in the
 * manifest the server reads), and the stylesheet. The server itself runs from source under Deno.
 */
const ALWAYS_LOADED = [
  "/lib/constants.ts",
  "/lib/serialize.ts",
  "/lib/color-mode.ts",
  "/islands/lib/notifications.ts",
  "/islands/lib/color-mode.ts",
  "/islands/lib/batch.ts",
];

export default defineConfig({
  plugins: [react(), tailwindcss()],
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
        // React, and the helpers of the layout's islands, are needed by every page that has an
        // island: in one chunk with the entry they compress better and cost one request, not six.
        // Helpers that only some islands use (forms, the API layer) stay in chunks of their own.
        manualChunks(id: string) {
          if (id.includes("node_modules") || ALWAYS_LOADED.some((path) => id.endsWith(path))) return "client";
        },
      },
    },
  },
});
