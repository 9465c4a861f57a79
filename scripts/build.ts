/**
 * Builds the islands and the stylesheet with Vite into dist/.
 *   --if-missing  only when there is no build yet (deno task start)
 *   --if-stale    only when a source the build reads is newer than the build (deno task test)
 *   --watch       rebuild on change (deno task dev)
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { build } from "vite";

const MANIFEST = "dist/.vite/manifest.json";
// Everything the client build or Tailwind's class scan reads.
const SOURCES = ["islands", "lib", "routes", "server/render", "vite.config.ts", "deno.lock"];

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
}

const MODE_FILE = "dist/.build-mode";

const args = new Set(Deno.args);
process.env.NODE_ENV ??= "production";
const mode = process.env.NODE_ENV;
// A build of another mode (deno task dev builds React's development version) is no build for this one.
const builtMode = existsSync(MODE_FILE) ? readFileSync(MODE_FILE, "utf8").trim() : null;
const built = existsSync(MANIFEST) && builtMode === mode ? statSync(MANIFEST).mtimeMs : 0;
if (args.has("--if-missing") && built) Deno.exit(0);
if (args.has("--if-stale") && built && Math.max(...SOURCES.map(newestMtime)) < built) Deno.exit(0);

const watch = args.has("--watch");
await build({
  configFile: "vite.config.ts",
  logLevel: watch ? "info" : "warn",
  build: watch ? { watch: {} } : {},
  plugins: [{ name: "build-mode", writeBundle: () => writeFileSync(MODE_FILE, mode) }],
});
if (!watch) console.log(`Islands built into dist/ (${mode})`);
