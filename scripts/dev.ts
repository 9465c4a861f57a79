/**
 * deno task dev: the server restarts when its code changes, and the islands rebuild when theirs
 * does. Both run until interrupted.
 */
const deno = Deno.execPath();
const env = { APP_ENV: "development", NODE_ENV: "development" };
const children = [
  new Deno.Command(deno, { args: ["run", "-A", "scripts/build.ts", "--watch"], env }).spawn(),
  // Wait for the first build before the server reads the manifest.
  new Deno.Command(deno, {
    args: ["run", "-A", "--watch=dist/.vite/manifest.json", "main.ts"],
    env,
  }).spawn(),
];
Deno.addSignalListener("SIGINT", () => {
  for (const child of children) child.kill("SIGTERM");
  Deno.exit(0);
});
await Promise.all(children.map((c) => c.status));
