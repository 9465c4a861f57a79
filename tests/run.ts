/**
 * deno task test: every suite, then one closing line "N passed, N failed" that counts them all.
 * Formatting (deno fmt --check), lint and the type check come first, then unit and integration
 * tests; the end-to-end suite needs Chromium (CHROMIUM_PATH, else /usr/bin/chromium) and fails
 * with install instructions when there is none. The "hrana" project runs the integration tests
 * again with their databases behind a test Hrana server, as Turso would serve them (decision 014).
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { stripVTControlCharacters } from "node:util";

const VITEST = "npm:vitest@4.1.12";
const outDir = mkdtempSync(join(tmpdir(), "portal-tests-"));

interface ReportFile {
  name: string;
  status: string;
  message?: string;
  assertionResults: { fullName: string; status: string; failureMessages?: string[] }[];
}

/**
 * Every failed test by file and name, repeated above the closing line: a CI log is often read
 * from its end, and a flaky failure among thousands of passing tests must be found there.
 */
const failures: string[] = [];
const firstLine = (text: string | undefined) =>
  stripVTControlCharacters(text ?? "").split("\n").find((l) => l.trim())?.trim().slice(0, 300) ?? "";

interface Counts {
  passed: number;
  failed: number;
  ok: boolean;
}

/**
 * A run that prints nothing for this long is taken for hung: a shared worker (decision 063) has
 * twice sat idle, outside any test's timeout, with no test running that vitest could time out.
 */
const SILENCE_MS = Number(Deno.env.get("TEST_SILENCE_MINUTES") ?? 6) * 60_000;

/** What a hung run left to say, repeated above the closing line. */
const hangs: string[] = [];

/**
 * Runs a vitest project together with the projects named `twins` (vitest.config.ts). A run that
 * goes silent for SILENCE_MS is stopped (it and every process under it), reported with the files it
 * was running (tests/helpers/progress-reporter.ts), and run once more; the second run's result
 * counts, and the hang is listed above the closing line whatever that result.
 */
async function runProject(
  project: string,
  extraEnv: Record<string, string> = {},
  twins: string[] = [],
  attempt = 1,
): Promise<Counts> {
  const report = join(outDir, `${project}-${attempt}.json`);
  const progress = join(outDir, `${project}-${attempt}.progress`);
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      VITEST,
      "run",
      ...[project, ...twins].flatMap((name) => ["--project", name]),
      "--reporter=default",
      "--reporter=json",
      "--reporter=./tests/helpers/progress-reporter.ts",
      `--outputFile.json=${report}`,
      ...Deno.args,
    ],
    env: { NODE_ENV: "test", APP_ENV: "test", TEST_PROGRESS_FILE: progress, ...extraEnv },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let heard = Date.now();
  const relay = async (from: ReadableStream<Uint8Array>, to: typeof Deno.stdout) => {
    for await (const chunk of from) {
      heard = Date.now();
      for (let written = 0; written < chunk.length;) written += await to.write(chunk.subarray(written));
    }
  };
  const relayed = Promise.all([relay(child.stdout, Deno.stdout), relay(child.stderr, Deno.stderr)]);
  let hung = false;
  const watch = setInterval(() => {
    if (hung || Date.now() - heard < SILENCE_MS) return;
    hung = true;
    const running = stillRunning(progress);
    const said = `${project}: no output for ${SILENCE_MS / 60_000} minutes (attempt ${attempt}); ` +
      `running: ${running.length ? running.join(", ") : "no test file (between files)"}`;
    console.error(`\n${said}: stopping it${attempt === 1 ? " and running it once more, each file isolated" : ""}.\n`);
    hangs.push(said);
    killTree(child.pid);
  }, 5_000);
  const { code } = await child.status;
  clearInterval(watch);
  // A worker left behind would hold the pipes open: what it has not said in 5 s is not waited for.
  let wait: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([relayed.catch(() => {}), new Promise((resolve) => wait = setTimeout(resolve, 5_000))]);
  clearTimeout(wait);
  // Once more with each file in a process of its own: slower, but the hang seen so far was a
  // shared worker's (decision 063, amended).
  if (hung && attempt === 1) return await runProject(project, { ...extraEnv, TEST_ISOLATE_FILES: "1" }, twins, 2);
  if (hung) return { passed: 0, failed: 1, ok: false };
  if (!existsSync(report)) return { passed: 0, failed: 1, ok: false };
  const json = JSON.parse(readFileSync(report, "utf8"));
  const files: ReportFile[] = json.testResults ?? [];
  // A suite that failed with no failed test counts as a failure: one that did not load (none of its
  // tests ran), or one whose hook failed (beforeAll: its tests were skipped, the others passed).
  const brokenFiles = files.filter((f) =>
    f.status === "failed" && !f.assertionResults.some((t) => t.status === "failed")
  );
  for (const file of brokenFiles) {
    const what = file.assertionResults.length === 0
      ? "did not load"
      : "failed outside its tests (a hook failed; its tests after it were skipped)";
    const why = file.message ? `: ${firstLine(file.message)}` : "";
    failures.push(`${project}: ${relative(Deno.cwd(), file.name)} ${what}${why}`);
  }
  for (const file of files) {
    for (const test of file.assertionResults.filter((t) => t.status === "failed")) {
      failures.push(
        `${project}: ${relative(Deno.cwd(), file.name)} > ${test.fullName}\n    ${
          firstLine(test.failureMessages?.[0])
        }`,
      );
    }
  }
  return {
    passed: json.numPassedTests ?? 0,
    failed: (json.numFailedTests ?? 0) + brokenFiles.length,
    ok: code === 0,
  };
}

/** The test files a run started and did not finish, from its progress file. */
function stillRunning(progress: string): string[] {
  if (!existsSync(progress)) return [];
  const open = new Set<string>();
  for (const line of readFileSync(progress, "utf8").split("\n")) {
    const [event, ...rest] = line.split(" ");
    if (event === "start") open.add(rest.join(" "));
    if (event === "end") open.delete(rest.join(" "));
  }
  return [...open];
}

/** Kills a process and every process under it (vitest's workers are its children). */
function killTree(pid: number) {
  const children = new Map<number, number[]>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      // The parent's pid is the 4th field, after the command in parentheses (which may hold spaces).
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry.name)]);
    } catch { /* gone meanwhile */ }
  }
  const tree: number[] = [];
  const visit = (p: number) => {
    tree.push(p);
    for (const c of children.get(p) ?? []) visit(c);
  };
  visit(pid);
  for (const p of tree.reverse()) {
    try {
      Deno.kill(p, "SIGKILL");
    } catch { /* gone meanwhile */ }
  }
}

function findChromium(): string | null {
  const candidates = [Deno.env.get("CHROMIUM_PATH"), "/usr/bin/chromium", "/usr/bin/chromium-browser"];
  return candidates.find((p) => p && existsSync(p)) ?? null;
}

/**
 * The type check of everything: one check that passes or fails as a whole. Its output is shown when it
 * ends and, when it fails, its errors are repeated above the closing line, where CI logs are read.
 */
let typeCheckErrors = "";
async function typeCheck(): Promise<Counts> {
  console.log("Type-checking (deno task check)...");
  // Always a full check, in a DENO_DIR of its own: resumed from what an earlier commit left in the
  // machine's DENO_DIR, Deno's incremental check can fail with TS2589 where a full check of the
  // same code passes (decision 010). The project's packages come from node_modules, so nothing is
  // downloaded; the full check takes ≈ 15 s.
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["task", "check"],
    env: { DENO_DIR: join(outDir, "deno-dir") },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  console.log(text);
  if (code !== 0) {
    // deno colours its output; the summary is plain text.
    const lines = stripVTControlCharacters(text).split("\n");
    // The diagnostics' own lines, not the source lines deno quotes under each of them.
    const errors = lines.filter((line) => /^\s*(TS\d{4}\b|error:|at file:)/.test(line));
    typeCheckErrors = (errors.length ? errors : lines.slice(-20)).slice(0, 40).join("\n") ||
      `exit code ${code}, no output`;
  }
  return { passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1, ok: code === 0 };
}

/**
 * `deno fmt --check` and `deno lint`, each one suite that passes or fails as a whole, so that CI
 * fails on an unformatted file or a lint finding. Their findings are repeated above the closing line.
 */
const toolFindings: string[] = [];
async function denoTool(name: string, args: string[]): Promise<Counts> {
  console.log(`${name} (deno ${args.join(" ")})...`);
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  if (code !== 0) {
    console.log(text);
    toolFindings.push(`${name} failed:\n${text.split("\n").filter((l) => l.trim()).slice(-30).join("\n")}`);
  } else console.log(text.trim());
  return { passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1, ok: code === 0 };
}

const results: Counts[] = [];
results.push(await denoTool("Formatting", ["fmt", "--check"]));
results.push(await denoTool("Lint", ["lint"]));
results.push(await typeCheck());
results.push(await runProject("unit", {}, ["integration"]));
// The integration tests again, over libSQL's Hrana protocol (decision 014).
results.push(await runProject("hrana", {}, ["hrana-mocking"]));

const chromium = findChromium();
if (chromium) {
  results.push(await runProject("e2e", { CHROMIUM_PATH: chromium }));
} else {
  console.error(
    "\nEnd-to-end tests need Chromium and none was found (CHROMIUM_PATH, /usr/bin/chromium).\n" +
      "Install Debian's Chromium with:\n  sudo apt-get update && sudo apt-get install -y chromium\n" +
      "or set CHROMIUM_PATH to a Chromium binary. The end-to-end suite counts as failed.\n",
  );
  results.push({ passed: 0, failed: 1, ok: false });
}

// On stdout, next to the closing line, where a CI log's end is read.
if (typeCheckErrors) console.log(`\nThe type check failed:\n${typeCheckErrors}`);
for (const findings of toolFindings) console.log(`\n${findings}`);
if (hangs.length) console.log(`\nRuns that went silent and were stopped:\n${hangs.map((h) => `  ${h}`).join("\n")}`);
if (failures.length) console.log(`\nFailed tests:\n${failures.map((f) => `  ${f}`).join("\n")}`);
const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
console.log(`\n${passed} passed, ${failed} failed`);
Deno.exit(results.every((r) => r.ok) && failed === 0 ? 0 : 1);
