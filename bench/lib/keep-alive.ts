/**
 * The load of the HTTP benchmarks (bench/conversions.ts, bench/payments.ts, bench/quotes.ts):
 * CONNECTIONS raw keep-alive connections (bench/lib/http1.ts), each doing one step of work after
 * another, back to back; the steps finished inside the window are counted, with their latency and
 * the CPU the servers, this process and the rest of the machine used meanwhile. One loop for all
 * of them, so that their figures are measured the same way.
 */
import { cpuSeconds, Http1Connection, machineBusySeconds } from "./http1.ts";
import { percentile } from "./report.ts";

/** A server the connections are dealt out to (a RunningPortal is one). */
export interface Target {
  url: string;
  pid: number;
}

/**
 * One step of a connection's work (e.g. execute one held quote), on its connection; `i` is the
 * connection's number. Answers false when there is nothing left to do (the held quotes ran out):
 * the window then ends there. Throws when an answer is not the one expected: the window fails.
 */
export type Step = (conn: Http1Connection, i: number) => Promise<boolean>;

export interface WindowSample {
  /** Steps finished inside the window. */
  count: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Cores used by the servers in the window (summed over the targets). */
  serverCpu: number | null;
  serverCpuUs: number | null;
  /** Cores used by this process (the load generator). */
  loaderCpu: number | null;
  /** Cores used by every other process of the machine. */
  otherCpu: number | null;
  /** The steps ran out before the window's end (the window was cut short there). */
  exhausted: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Opens `connections` keep-alive connections, connection i to `urlOf(i)`, runs `work` on each at
 * once and closes them, whatever happens.
 */
export async function onConnections(
  connections: number,
  urlOf: (i: number) => string,
  work: (conn: Http1Connection, i: number) => Promise<void>,
): Promise<void> {
  await Promise.all(Array.from({ length: connections }, async (_, i) => {
    const conn = new Http1Connection(urlOf(i));
    try {
      await work(conn, i);
    } finally {
      conn.close();
    }
  }));
}

/**
 * Holds `count` quotes for each holder over HTTP, `connections` at once (connection i works for
 * holder i % holders.length): `quote(holder)` says the POST to make, answered 200 with the quote's
 * id, pushed onto the holder's `quotes`. Answers quotes per second.
 */
export async function holdQuotes<H extends { quotes: string[] }>(
  url: string,
  holders: H[],
  count: number,
  connections: number,
  quote: (holder: H) => { path: string; headers: Record<string, string>; body: string },
): Promise<number> {
  const wanted = holders.map(() => count);
  const started = performance.now();
  await onConnections(connections, () => url, async (conn, i) => {
    const k = i % holders.length;
    while (wanted[k] > 0) {
      wanted[k]--;
      const { path, headers, body } = quote(holders[k]);
      const res = await conn.request("POST", path, headers, body);
      if (res.status !== 200) throw new Error(`POST ${path} answered ${res.status}: ${res.body.slice(0, 300)}`);
      holders[k].quotes.push(JSON.parse(res.body).body.id);
    }
  });
  return (count * holders.length) / ((performance.now() - started) / 1000);
}

/**
 * Warm-up, then the measured window: `connections` connections, dealt out over the targets in
 * turn, each running `step` back to back until the window ends, a step fails or the steps run out.
 */
export async function measureWindow(options: {
  targets: Target[];
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  step: Step;
}): Promise<WindowSample> {
  const { targets, step } = options;
  let measuring = false;
  let stop = false;
  let failure: Error | null = null;
  let count = 0;
  const latencies: number[] = [];
  let exhaustedAt: number | null = null;
  let signalExhausted!: () => void;
  const exhausted = new Promise<void>((r) => (signalExhausted = r));

  const loops = onConnections(options.connections, (i) => targets[i % targets.length].url, async (conn, i) => {
    try {
      while (!stop && !failure) {
        const t0 = performance.now();
        if (!(await step(conn, i))) {
          exhaustedAt ??= performance.now();
          signalExhausted();
          return;
        }
        if (measuring) {
          count++;
          latencies.push(performance.now() - t0);
        }
      }
    } catch (error) {
      failure ??= error instanceof Error ? error : new Error(String(error));
    }
  });

  await Promise.race([sleep(options.warmupSeconds * 1000), exhausted, loops]);
  if (exhaustedAt !== null) throw new Error("The work ran out during the warm-up: hold more quotes per round.");
  const serversCpu = () => {
    const each = targets.map((t) => cpuSeconds(t.pid));
    return each.some((v) => v === null) ? null : (each as number[]).reduce((a, b) => a + b, 0);
  };
  const server0 = serversCpu();
  const self0 = cpuSeconds("self");
  const machine0 = machineBusySeconds();
  const start = performance.now();
  measuring = true;
  await Promise.race([sleep(options.durationSeconds * 1000), exhausted, loops]);
  measuring = false;
  const seconds = ((exhaustedAt ?? performance.now()) - start) / 1000;
  const server1 = serversCpu();
  const self1 = cpuSeconds("self");
  const machine1 = machineBusySeconds();
  stop = true;
  await loops;
  if (failure) throw failure;

  const sorted = Float64Array.from(latencies).sort();
  const serverTime = server0 !== null && server1 !== null ? server1 - server0 : null;
  const selfTime = self0 !== null && self1 !== null ? self1 - self0 : null;
  const otherTime = machine0 !== null && machine1 !== null && serverTime !== null && selfTime !== null
    ? Math.max(0, machine1 - machine0 - serverTime - selfTime)
    : null;
  return {
    count,
    seconds,
    perSecond: count / seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    serverCpu: serverTime !== null ? serverTime / seconds : null,
    serverCpuUs: serverTime !== null && count ? (serverTime / count) * 1e6 : null,
    loaderCpu: selfTime !== null ? selfTime / seconds : null,
    otherCpu: otherTime !== null ? otherTime / seconds : null,
    exhausted: exhaustedAt !== null,
  };
}
