/**
 * Summarises a V8 .cpuprofile (from `deno run --cpu-prof`): the functions with the most self time,
 * the most inclusive time, and the time per source package.
 *
 *   deno run -A bench/tools/cpuprofile-summary.ts PROFILE.cpuprofile [--top 30] [--match TEXT]
 *
 * --match keeps only the inclusive rows whose function or file contains TEXT.
 */
interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const args = [...Deno.args];
const file = args.find((a) => !a.startsWith("--"));
if (!file) throw new Error("Usage: bench/tools/cpuprofile-summary.ts PROFILE.cpuprofile [--top N] [--match TEXT]");
const opt = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const top = Number(opt("--top") ?? 30);
const match = opt("--match");

const profile = JSON.parse(Deno.readTextFileSync(file)) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const shortUrl = (url: string) =>
  url
    .replace(/^file:\/\/.*?\/node_modules\/\.deno\//, "npm:")
    .replace(/^file:\/\/.*?\/main\//, "")
    .replace(/\/node_modules\/[^/]+\//, "/");
const key = (f: CallFrame) =>
  `${f.functionName || "(anonymous)"}  ${shortUrl(f.url)}${f.url ? `:${f.lineNumber + 1}` : ""}`;
const pkg = (f: CallFrame) => {
  const m = f.url.match(/node_modules\/\.deno\/([^/]+)\//);
  if (m) return `npm:${m[1].replace(/@(\d[^@]*)$/, "")}`;
  if (f.url.startsWith("ext:")) return "deno runtime (ext:)";
  if (f.url.startsWith("file://")) return "portal source";
  return f.functionName.startsWith("(") ? f.functionName : "(native/other)";
};

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
const byPkg = new Map<string, number>();
let total = 0;
let idle = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i] ?? 0;
  const node = byId.get(profile.samples[i])!;
  total += dt;
  if (node.callFrame.functionName === "(idle)") {
    idle += dt;
    continue;
  }
  self.set(key(node.callFrame), (self.get(key(node.callFrame)) ?? 0) + dt);
  byPkg.set(pkg(node.callFrame), (byPkg.get(pkg(node.callFrame)) ?? 0) + dt);
  const seen = new Set<string>();
  for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
    const k = key(byId.get(id)!.callFrame);
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + dt);
  }
}
const busy = total - idle;
const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
const print = (title: string, map: Map<string, number>, filter?: (k: string) => boolean) => {
  console.log(`\n${title}`);
  [...map.entries()]
    .filter(([k]) => !filter || filter(k))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([k, us]) => console.log(`  ${pct(us)}  ${k}`));
};
console.log(
  `${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy (percentages are of busy time)`,
);
print("By package (self time)", byPkg);
print("Self time", self);
print("Inclusive time", inclusive, match ? (k) => k.includes(match) : undefined);
