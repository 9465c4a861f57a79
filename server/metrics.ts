/**
 * GET /metrics in the Prometheus text format (version 0.0.4), written by hand: three families of
 * our own do not need a client library (decision 041).
 *
 * - Requests, counted in this process as they are answered: `portal_http_requests_total` and the
 *   histogram `portal_http_request_duration_seconds`, labelled by method and the route's PATTERN
 *   (`/api/account/conversions/:id`), never the raw path, so the series stay few and hold no ids.
 *   Each process counts its own; Prometheus adds the instances up (`sum by (route)`).
 * - Jobs and ledger transfers, read from the database at each scrape (`portal_jobs`,
 *   `portal_ledger_transfers_total`): they are shared by every process, so each instance reports
 *   the same totals, which is right for a gauge of the queue (`max` across instances) and for a
 *   count whose truth is the ledger itself.
 */
import type { Database } from "../db/client.ts";

/** Upper bounds of the duration buckets, seconds: from a cached page (~1 ms) to a slow export. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface RouteSeries {
  method: string;
  route: string;
  byStatus: Map<number, number>;
  /** Cumulative counts per bucket are computed when written; here each observation's own bucket. */
  buckets: number[];
  sum: number;
  count: number;
}

/** Counts and times the requests this process answered. */
export class HttpMetrics {
  readonly #series = new Map<string, RouteSeries>();

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route}`;
    let series = this.#series.get(key);
    if (!series) {
      series = { method, route, byStatus: new Map(), buckets: DURATION_BUCKETS.map(() => 0), sum: 0, count: 0 };
      this.#series.set(key, series);
    }
    series.byStatus.set(status, (series.byStatus.get(status) ?? 0) + 1);
    const bucket = DURATION_BUCKETS.findIndex((le) => seconds <= le);
    if (bucket >= 0) series.buckets[bucket]++;
    series.sum += seconds;
    series.count++;
  }

  /** The request families as Prometheus text. */
  text(): string {
    const out: string[] = [];
    out.push(
      "# HELP portal_http_requests_total Requests answered by this process, by method, route pattern and status.",
      "# TYPE portal_http_requests_total counter",
    );
    for (const s of this.#series.values()) {
      for (const [status, n] of s.byStatus) {
        out.push(`portal_http_requests_total${labels({ method: s.method, route: s.route, status })} ${n}`);
      }
    }
    out.push(
      "# HELP portal_http_request_duration_seconds Time to answer a request, by method and route pattern.",
      "# TYPE portal_http_request_duration_seconds histogram",
    );
    for (const s of this.#series.values()) {
      const base = { method: s.method, route: s.route };
      let cumulative = 0;
      DURATION_BUCKETS.forEach((le, i) => {
        cumulative += s.buckets[i];
        out.push(`portal_http_request_duration_seconds_bucket${labels({ ...base, le })} ${cumulative}`);
      });
      out.push(`portal_http_request_duration_seconds_bucket${labels({ ...base, le: "+Inf" })} ${s.count}`);
      out.push(`portal_http_request_duration_seconds_sum${labels(base)} ${number(s.sum)}`);
      out.push(`portal_http_request_duration_seconds_count${labels(base)} ${s.count}`);
    }
    return out.join("\n") + "\n";
  }
}

/**
 * The ledger's transfers by kind, counted once and then only the new ones: transfers are never
 * deleted, and their ids grow in the order they commit (one writer at a time, decision 012 and
 * Turso alike), so each scrape counts the rows past the last id it saw. A full `GROUP BY kind`
 * took 315 ms at 200,000 transfers on the build machine; the first scrape of a process pays that
 * once, the next ones cost what was written since.
 */
export class TransferCounts {
  #lastId = 0;
  readonly #counts = new Map<string, number>();
  #turn: Promise<unknown> = Promise.resolve();

  /** The counts by kind, up to date; two scrapes at once take turns (neither counts a row twice). */
  read(db: Database): Promise<Map<string, number>> {
    const next = this.#turn.then(async () => {
      const { rows } = await db.$client.execute({
        sql: "SELECT kind, count(*) AS n, max(id) AS last FROM ledger_transfers WHERE id > ? GROUP BY kind",
        args: [this.#lastId],
      });
      let last = this.#lastId;
      for (const row of rows) {
        const kind = String(row.kind);
        this.#counts.set(kind, (this.#counts.get(kind) ?? 0) + Number(row.n));
        last = Math.max(last, Number(row.last));
      }
      this.#lastId = last;
      return new Map([...this.#counts].sort(([a], [b]) => a.localeCompare(b)));
    });
    this.#turn = next.catch(() => {});
    return next;
  }
}

/** The families read from the database: jobs by kind and status, ledger transfers by kind. */
export async function databaseMetricsText(db: Database, transfers: TransferCounts): Promise<string> {
  const [jobRows, transferCounts] = await Promise.all([
    db.$client.execute("SELECT kind, status, count(*) AS n FROM jobs GROUP BY kind, status ORDER BY kind, status"),
    transfers.read(db),
  ]);
  const out = [
    "# HELP portal_jobs Background jobs in the database, by kind and status.",
    "# TYPE portal_jobs gauge",
    ...jobRows.rows.map((row) =>
      `portal_jobs${labels({ kind: String(row.kind), status: String(row.status) })} ${Number(row.n)}`
    ),
    "# HELP portal_ledger_transfers_total Transfers in the ledger, by kind.",
    "# TYPE portal_ledger_transfers_total counter",
    ...[...transferCounts].map(([kind, n]) => `portal_ledger_transfers_total${labels({ kind })} ${n}`),
  ];
  return out.join("\n") + "\n";
}

/** `{name="value",...}` with the text format's escapes (backslash, double quote, line feed). */
function labels(values: Record<string, string | number>): string {
  const parts = Object.entries(values).map(([name, value]) =>
    `${name}="${String(value).replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`
  );
  return `{${parts.join(",")}}`;
}

/** A sample value: Prometheus reads Go floats; an exponent form is fine, NaN and Infinity spelled its way. */
function number(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "+Inf" : "-Inf";
  return String(Math.round(value * 1e6) / 1e6);
}
