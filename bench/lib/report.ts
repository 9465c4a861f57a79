/** What each benchmark module hands back to bench/run.ts, and the small formatting helpers. */
import type { RunningPortal } from "./processes.ts";

/** One line of the final summary; `budget` makes it a pass/fail check. */
export interface SummaryRow {
  metric: string;
  value: string;
  budget?: { limit: string; pass: boolean };
}

export interface BenchResult {
  name: string;
  rows: SummaryRow[];
}

/** Shared by the modules: one portal process, started on first use and stopped by run.ts. */
export interface BenchContext {
  portal(): Promise<RunningPortal>;
  options: BenchOptions;
}

export interface BenchOptions {
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  rounds: number;
  paths: string[];
  /** Whether --paths was given: the page bench then measures only those of its pages. */
  pathsGiven?: boolean;
  /** Where the portal writes a V8 CPU profile of the run (--cpu-prof DIR); none by default. */
  cpuProfileDir?: string;
}

export interface BenchModule {
  name: string;
  run(ctx: BenchContext): Promise<BenchResult>;
}

/** KB as 1000 bytes, so that "80 KB" is 80,000 bytes (the stricter reading). */
export const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;

export const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Nearest-rank percentile of an already sorted array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** A plain text table; numbers-looking cells are right-aligned. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const numeric = (s: string) => /^[-+]?[\d,.]+( ?[a-zA-Zµ/%]+)?$/.test(s);
  const line = (cells: string[]) =>
    cells.map((c, i) => (numeric(c) ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join("  ").trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}
