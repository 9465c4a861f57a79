/**
 * The baseline: a bare Deno.serve that answers fixed bytes, the very pages the portal rendered.
 *   BARE_PAGES=pages.json PORT=... HOST=127.0.0.1 deno run -A bench/bare-server.ts
 * pages.json maps a path to { "file": "/tmp/.../page.html", "contentType": "text/html; ...",
 * "headers": [[name, value], ...] }. Only the content-type is sent, unless BARE_ALL_HEADERS=1: then
 * every header the portal sent too (a diagnostic: what the headers alone cost in Deno.serve).
 * Any other path is a 404; /__ready answers 200 once listening.
 */
interface PageFile {
  file: string;
  contentType: string;
  headers?: [string, string][];
}

const allHeaders = Deno.env.get("BARE_ALL_HEADERS") === "1";

const pagesFile = Deno.env.get("BARE_PAGES");
if (!pagesFile) throw new Error("BARE_PAGES must name a JSON file of { path: { file, contentType } }");
const spec = JSON.parse(Deno.readTextFileSync(pagesFile)) as Record<string, PageFile>;
const pages = new Map(
  Object.entries(spec).map(([path, page]) => [path, {
    body: Deno.readFileSync(page.file),
    contentType: page.contentType,
    extra: allHeaders && page.headers ? page.headers.filter(([name]) => name !== "content-type") : [],
  }]),
);

const server = Deno.serve({
  port: Number(Deno.env.get("PORT") ?? 8001),
  hostname: Deno.env.get("HOST") ?? "127.0.0.1",
  onListen: ({ port }) => console.log(`Bare server on http://127.0.0.1:${port} (${pages.size} pages)`),
}, (req) => {
  const path = new URL(req.url).pathname;
  const page = pages.get(path);
  if (page) {
    const res = new Response(page.body, { headers: { "content-type": page.contentType } });
    // Set one by one, as Hono's secure-headers does: in Deno 2.9 that is about 3 times cheaper
    // than handing many headers to the Response constructor.
    for (const [name, value] of page.extra) res.headers.set(name, value);
    return res;
  }
  if (path === "/__ready") return new Response("ok");
  return new Response("Not found", { status: 404 });
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    await server.shutdown();
    Deno.exit(0);
  });
}
