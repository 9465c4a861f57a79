/**
 * The HTTP load generator, run as its own process so that it never shares an event loop with the
 * server it loads:
 *
 *   deno run -A bench/load.ts URL [--connections 32] [--warmup 2] [--duration 5] [--server-pid PID]
 *                             [--client tcp|fetch] [--header 'Name: value'...] [--json]
 *
 * N concurrent loops each send GET URL over their own keep-alive connection and read the whole
 * answer. After the warm-up, the answers that complete within the measured window are counted and
 * their latencies kept. The default client (--client tcp) is a minimal HTTP/1.1 client on raw
 * sockets: fetch() costs the load generator 3 to 4 times more CPU per request, so much that on
 * 2 cores it, not a bare Deno.serve, was the bottleneck (--client fetch to compare). Any answer
 * other than 200, or any network error, fails the run (exit code 1).
 * With --server-pid, the CPU time that process used during the window is read from /proc (Linux),
 * which tells whether the server or the load generator was the bottleneck, and what the server
 * spent per answer; /proc/stat tells how much CPU other processes took meanwhile.
 *
 * bench/ modules call measureLoad(), which spawns this script and parses its --json line.
 */
import { percentile } from "./lib/report.ts";
import { spawnTracked } from "./lib/processes.ts";

export interface LoadOptions {
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  /** The server's process id, to report its CPU use during the window. */
  serverPid?: number;
  /** "tcp" (default): a minimal HTTP/1.1 client on raw sockets; "fetch": Deno's fetch(). */
  client?: "tcp" | "fetch";
  /** Headers sent with every request besides Host, Accept and User-Agent (a signed-in page's Cookie). */
  headers?: [string, string][];
}

export interface LoadResult {
  url: string;
  client: "tcp" | "fetch";
  connections: number;
  requests: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  bytesPerAnswer: number;
  /** Share of one core the server used during the window (1 = one full core); null if unknown. */
  serverCpu: number | null;
  /** The same for this load generator. */
  loaderCpu: number | null;
  /** Server CPU time per answer, in microseconds; null if unknown. */
  serverCpuUsPerRequest: number | null;
  /**
   * CPU the rest of the machine used during the window, in cores: all busy time (/proc/stat) less
   * the server's and the load generator's. Other processes competing for the cores make the window
   * unrepresentative; bench/page.ts measures such a sample again.
   */
  otherCpu: number | null;
}

/** Runs bench/load.ts in a separate process and returns its measurement. */
export async function measureLoad(url: string, options: LoadOptions): Promise<LoadResult> {
  const args = [
    "run",
    "-A",
    new URL("./load.ts", import.meta.url).pathname,
    url,
    "--connections",
    String(options.connections),
    "--warmup",
    String(options.warmupSeconds),
    "--duration",
    String(options.durationSeconds),
    "--json",
  ];
  if (options.serverPid) args.push("--server-pid", String(options.serverPid));
  if (options.client) args.push("--client", options.client);
  for (const [name, value] of options.headers ?? []) args.push("--header", `${name}: ${value}`);
  const child = spawnTracked(
    new Deno.Command(Deno.execPath(), { args, stdin: "null", stdout: "piped", stderr: "piped" }),
  );
  const { code, stdout, stderr } = await child.output();
  const out = new TextDecoder().decode(stdout).trim();
  const err = new TextDecoder().decode(stderr).trim();
  if (code !== 0) throw new Error(`The load generator failed on ${url} (exit ${code}): ${err || out}`);
  const last = out.split("\n").at(-1) ?? "";
  try {
    return JSON.parse(last) as LoadResult;
  } catch {
    throw new Error(`The load generator printed no result for ${url}: ${out}\n${err}`);
  }
}

// ---------------------------------------------------------------------------------------------
// The load generator itself (when run as a script).

/** utime + stime of a process in seconds, from /proc (Linux); null elsewhere. */
function cpuSeconds(pid: number | "self"): number | null {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis don't.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name. Linux
    // reports them in clock ticks, which are 100 per second on every mainstream architecture.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** One keep-alive connection's worth of work: send GET, read the whole answer, give status and size. */
type Requester = { request(): Promise<{ status: number; bytes: number; body: () => string }>; close(): void };

function fetchRequester(url: string, client: Deno.HttpClient, headers: [string, string][]): Requester {
  return {
    async request() {
      const res = await fetch(url, { client, headers });
      const body = await res.arrayBuffer();
      return { status: res.status, bytes: body.byteLength, body: () => new TextDecoder().decode(body) };
    },
    close() {},
  };
}

const CRLFCRLF = [13, 10, 13, 10];
function indexOfSeq(buf: Uint8Array, seq: number[], from: number, to: number): number {
  outer: for (let i = from; i <= to - seq.length; i++) {
    for (let j = 0; j < seq.length; j++) if (buf[i + j] !== seq[j]) continue outer;
    return i;
  }
  return -1;
}

/**
 * A minimal HTTP/1.1 client on one raw TCP connection: a prebuilt GET, then the answer read until
 * its Content-Length (or last chunk) is in. It costs the load generator far less CPU per request
 * than fetch(), so that a fast server, not the load generator, is what gets measured.
 */
function tcpRequester(url: string, headers: [string, string][]): Requester {
  const target = new URL(url);
  const extra = headers.map(([name, value]) => `${name}: ${value}\r\n`).join("");
  const request = new TextEncoder().encode(
    `GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nAccept: */*\r\nUser-Agent: portal-bench\r\n${extra}\r\n`,
  );
  const latin1 = new TextDecoder("latin1");
  let conn: Deno.TcpConn | null = null;
  let buf = new Uint8Array(64 * 1024);
  // Bytes of the next answer already read (never happens without pipelining, kept for safety).
  let carry = 0;

  /** Where a chunked body ends (index after the final CRLF), or -1 if not all in yet. */
  function chunkedEnd(start: number, len: number): number {
    let i = start;
    for (;;) {
      const lineEnd = indexOfSeq(buf, [13, 10], i, len);
      if (lineEnd < 0) return -1;
      const size = parseInt(latin1.decode(buf.subarray(i, lineEnd)), 16);
      if (!Number.isFinite(size)) throw new Error("Malformed chunked answer");
      if (size === 0) {
        const end = indexOfSeq(buf, [13, 10], lineEnd + 2, len);
        // Trailers are not expected; the last chunk is "0\r\n\r\n".
        return end < 0 ? -1 : end + 2;
      }
      i = lineEnd + 2 + size + 2;
      if (i > len) return -1;
    }
  }

  return {
    async request() {
      if (!conn) {
        conn = await Deno.connect({ hostname: target.hostname, port: Number(target.port || 80) });
        conn.setNoDelay(true);
        carry = 0;
      }
      for (let written = 0; written < request.length;) written += await conn.write(request.subarray(written));
      let len = carry;
      let headerEnd = -1;
      let status = 0;
      let bodyStart = 0;
      let contentLength = -1;
      let chunked = false;
      let close = false;
      for (;;) {
        if (headerEnd < 0 || contentLength < 0 || len < bodyStart + contentLength) {
          if (len === buf.length) {
            const bigger = new Uint8Array(buf.length * 2);
            bigger.set(buf);
            buf = bigger;
          }
          const n = await conn.read(buf.subarray(len));
          if (n === null) throw new Error("The server closed the connection in the middle of an answer");
          len += n;
        }
        if (headerEnd < 0) {
          headerEnd = indexOfSeq(buf, CRLFCRLF, 0, len);
          if (headerEnd < 0) continue;
          const head = latin1.decode(buf.subarray(0, headerEnd));
          status = Number(head.slice(9, 12));
          bodyStart = headerEnd + 4;
          for (const line of head.split("\r\n").slice(1)) {
            const colon = line.indexOf(":");
            const name = line.slice(0, colon).trim().toLowerCase();
            const value = line.slice(colon + 1).trim().toLowerCase();
            if (name === "content-length") contentLength = Number(value);
            else if (name === "transfer-encoding" && value.includes("chunked")) chunked = true;
            else if (name === "connection" && value === "close") close = true;
          }
          if (!chunked && contentLength < 0) {
            throw new Error("Answers without Content-Length or chunked encoding are not supported");
          }
        }
        let end = -1;
        if (chunked) end = chunkedEnd(bodyStart, len);
        else if (len >= bodyStart + contentLength) end = bodyStart + contentLength;
        if (end < 0) {
          if (chunked) contentLength = -1; // keep reading
          continue;
        }
        const body = buf.slice(bodyStart, end);
        carry = len - end;
        if (carry) buf.copyWithin(0, end, len);
        if (close) this.close();
        return { status, bytes: end - bodyStart, body: () => new TextDecoder().decode(body) };
      }
    },
    close() {
      try {
        conn?.close();
      } catch { /* already closed */ }
      conn = null;
    },
  };
}

/** Busy CPU seconds of the whole machine (all cores), from /proc/stat; null elsewhere. */
function machineBusySeconds(): number | null {
  try {
    const line = Deno.readTextFileSync("/proc/stat").split("\n")[0];
    // cpu user nice system idle iowait irq softirq steal ... in clock ticks (100 per second).
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return (user + nice + system + irq + softirq + (steal || 0)) / 100;
  } catch {
    return null;
  }
}

async function generate(url: string, options: LoadOptions): Promise<LoadResult> {
  const client = options.client === "fetch"
    ? Deno.createHttpClient({ poolMaxIdlePerHost: options.connections, http2: false })
    : null;
  let measuring = false;
  let stop = false;
  let failure: Error | null = null;
  let requests = 0;
  let bytes = 0;
  const latencies: number[] = [];

  async function loop() {
    const headers = options.headers ?? [];
    const requester = client ? fetchRequester(url, client, headers) : tcpRequester(url, headers);
    try {
      while (!stop && !failure) {
        const t0 = performance.now();
        const res = await requester.request();
        if (res.status !== 200) {
          failure ??= new Error(`GET ${url} answered ${res.status}: ${res.body().slice(0, 300)}`);
          return;
        }
        if (measuring) {
          requests++;
          bytes += res.bytes;
          latencies.push(performance.now() - t0);
        }
      }
    } catch (error) {
      if (!stop) failure ??= error instanceof Error ? error : new Error(String(error));
    } finally {
      requester.close();
    }
  }

  const loops = Array.from({ length: options.connections }, loop);
  const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));
  const whileRunning = (s: number) => Promise.race([sleep(s), Promise.all(loops)]);

  await whileRunning(options.warmupSeconds);
  const server0 = options.serverPid ? cpuSeconds(options.serverPid) : null;
  const self0 = cpuSeconds("self");
  const machine0 = machineBusySeconds();
  const start = performance.now();
  measuring = true;
  await whileRunning(options.durationSeconds);
  measuring = false;
  const seconds = (performance.now() - start) / 1000;
  const server1 = options.serverPid ? cpuSeconds(options.serverPid) : null;
  const self1 = cpuSeconds("self");
  const machine1 = machineBusySeconds();
  stop = true;
  await Promise.all(loops);
  client?.close();
  if (failure) throw failure;

  const sorted = Float64Array.from(latencies).sort();
  const serverCpuTime = server0 !== null && server1 !== null ? server1 - server0 : null;
  const loaderCpuTime = self0 !== null && self1 !== null ? self1 - self0 : null;
  const otherCpuTime = machine0 !== null && machine1 !== null && serverCpuTime !== null && loaderCpuTime !== null
    ? Math.max(0, machine1 - machine0 - serverCpuTime - loaderCpuTime)
    : null;
  return {
    url,
    client: options.client ?? "tcp",
    connections: options.connections,
    requests,
    seconds,
    rps: requests / seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.length ? sorted[sorted.length - 1] : NaN,
    bytesPerAnswer: requests ? bytes / requests : 0,
    serverCpu: serverCpuTime !== null ? serverCpuTime / seconds : null,
    loaderCpu: loaderCpuTime !== null ? loaderCpuTime / seconds : null,
    serverCpuUsPerRequest: serverCpuTime !== null && requests ? (serverCpuTime / requests) * 1e6 : null,
    otherCpu: otherCpuTime !== null ? otherCpuTime / seconds : null,
  };
}

function parseArgs(args: string[]): { url: string; options: LoadOptions; json: boolean } {
  let url = "";
  const options: LoadOptions = { connections: 32, warmupSeconds: 2, durationSeconds: 5 };
  let json = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = () => {
      const v = Number(args[++i]);
      if (!Number.isFinite(v) || v < 0) throw new Error(`${arg} needs a number`);
      return v;
    };
    if (arg === "--connections" || arg === "-c") options.connections = Math.max(1, Math.floor(value()));
    else if (arg === "--warmup") options.warmupSeconds = value();
    else if (arg === "--duration" || arg === "-d") options.durationSeconds = value();
    else if (arg === "--server-pid") options.serverPid = value();
    else if (arg === "--json") json = true;
    else if (arg === "--header" || arg === "-H") {
      const line = args[++i] ?? "";
      const colon = line.indexOf(":");
      if (colon < 1) throw new Error(`${arg} needs "Name: value"`);
      (options.headers ??= []).push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
    } else if (arg === "--client") {
      const v = args[++i];
      if (v !== "tcp" && v !== "fetch") throw new Error("--client is tcp or fetch");
      options.client = v;
    } else if (!arg.startsWith("-")) url = arg;
    else throw new Error(`Unknown option ${arg}`);
  }
  if (!url) {
    throw new Error(
      "Usage: deno run -A bench/load.ts URL [--connections N] [--warmup S] [--duration S] [--server-pid PID] [--client tcp|fetch] [--header 'Name: value'] [--json]",
    );
  }
  return { url, options, json };
}

if (import.meta.main) {
  try {
    const { url, options, json } = parseArgs(Deno.args);
    const r = await generate(url, options);
    if (json) console.log(JSON.stringify(r));
    else {
      console.log(
        `${url}: ${r.requests} answers in ${r.seconds.toFixed(2)} s = ${r.rps.toFixed(0)} req/s, ` +
          `p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms, max ${r.maxMs.toFixed(2)} ms` +
          (r.serverCpu !== null ? `, server CPU ${(r.serverCpu * 100).toFixed(0)}%` : "") +
          (r.loaderCpu !== null ? `, load generator CPU ${(r.loaderCpu * 100).toFixed(0)}%` : "") +
          (r.otherCpu !== null ? `, other processes ${(r.otherCpu * 100).toFixed(0)}%` : ""),
      );
    }
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    Deno.exit(1);
  }
}
