/**
 * Builds the islands and the stylesheet with Vite into dist/.
 *   --if-missing  only when there is no build yet (deno task start)
 *   --if-stale    only when a source the build reads is newer than the build (deno task test)
 *   --watch       rebuild on change (deno task dev)
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
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
const ASSETS = "dist/assets";

const args = new Set(Deno.args);
process.env.NODE_ENV ??= "production";
const mode = process.env.NODE_ENV;
// A build of another mode (deno task dev builds React's development version) is no build for this one.
const builtMode = existsSync(MODE_FILE) ? readFileSync(MODE_FILE, "utf8").trim() : null;
const built = existsSync(MANIFEST) && builtMode === mode ? statSync(MANIFEST).mtimeMs : 0;
if (args.has("--if-missing") && built) Deno.exit(0);
if (args.has("--if-stale") && built && Math.max(...SOURCES.map(newestMtime)) < built) Deno.exit(0);

/** The built files a browser downloads as text: each gets its brotli and gzip forms beside it. */
const TEXT_ASSET = /\.(?:js|mjs|css|svg|json|txt|xml|html)$/;

/**
 * Writes file.br (brotli, quality 11) and file.gz (gzip, level 9) beside every text file of
 * dist/assets, so that the server sends them as they are (decision 034): the strongest
 * compression costs nothing per request. A file whose compressed form would not be smaller gets
 * none and is sent as it is.
 */
async function precompressAssets(dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  const brotli = promisify(brotliCompress);
  const gzipped = promisify(gzip);
  // In parallel: node:zlib works on its thread pool.
  await Promise.all(
    readdirSync(dir).filter((name) => TEXT_ASSET.test(name)).map(async (name) => {
      const path = join(dir, name);
      const content = readFileSync(path);
      const [br, gz] = await Promise.all([
        brotli(content, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
            [constants.BROTLI_PARAM_SIZE_HINT]: content.byteLength,
          },
        }),
        gzipped(content, { level: 9 }),
      ]);
      if (br.byteLength < content.byteLength) writeFileSync(`${path}.br`, br);
      if (gz.byteLength < content.byteLength) writeFileSync(`${path}.gz`, gz);
    }),
  );
}

const watch = args.has("--watch");
await build({
  configFile: "vite.config.ts",
  logLevel: watch ? "info" : "warn",
  build: watch ? { watch: {} } : {},
  plugins: [
    // Each rebuild empties dist/: while watching, the compressed forms are written after every one.
    ...(watch ? [{ name: "portal:precompress", writeBundle: () => precompressAssets(ASSETS) }] : []),
    { name: "build-mode", writeBundle: () => writeFileSync(MODE_FILE, mode) },
  ],
});
if (!watch) {
  await precompressAssets(ASSETS);
  console.log(`Islands built into dist/ (${mode}), with their brotli and gzip forms`);
}
