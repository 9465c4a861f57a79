import { build } from "vite";
import { gzipSync } from "node:zlib";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
const cases: Record<string, string> = {
  devalue6: `import { parse } from "devalue"; console.log(parse);`,
  reactdom: `import { hydrateRoot } from "react-dom/client"; console.log(hydrateRoot);`,
};
for (const [name, code] of Object.entries(cases)) {
  writeFileSync(`islands/_sz_${name}.ts`, code);
  await build({ configFile: false, logLevel: "silent", root: Deno.cwd(), define: { "process.env.NODE_ENV": '"production"' }, build: { write: true, outDir: `/tmp/sz/out-${name}`, emptyOutDir: true, rollupOptions: { input: `islands/_sz_${name}.ts` } } });
  let total = 0;
  const dir = `/tmp/sz/out-${name}/assets`;
  for (const f of readdirSync(dir)) total += gzipSync(readFileSync(`${dir}/${f}`), { level: 9 }).length;
  console.log(name, total);
}
