/**
 * deno task dev: the server restarts when its code changes, and the islands rebuild when theirs
 * does. Both run until interrupted.
 */
const deno = Deno.execPath();
const env = { APP_ENV: "development", NODE_ENV: "development" };
const children = [
  new Deno.Command(deno, { args: ["run", "-A", "scripts/build.ts", "--watch"], env }).spawn(),
  // The server restarts whenever the island build rewrites its manifest (including the first build,
  // if the server started before it and stopped for want of it).
  new Deno.Command(deno, {
    args: ["run", "-A", "--watch=dist/.vite/manifest.json", "main.ts"],
    env,
  }).spawn(),
];
// Ctrl-C, or a supervisor's SIGTERM: both children go too, none is left running. (Deno's --watch
// outlives a SIGTERM to the program it watches, so the children are killed outright: in
// development nothing is lost by that.)
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, () => {
    for (const child of children) {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
    }
    Deno.exit(0);
  });
}
await Promise.all(children.map((c) => c.status));
