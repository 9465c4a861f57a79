import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/**
 * Builds the browser side only: the hydration entry, one chunk per island (each listed in the
 * manifest the server reads), and the stylesheet. The server itself runs from source under Deno.
 */
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
    },
  },
});
