import { BATCH_RESET_PAUSE_MS } from "../../lib/constants.ts";

/**
 * The request batch of SPEC.md section 4: "every post or put aborts and resets the current batch
 * after a 100 ms pause".
 *
 * Reads (GET) belong to the batch that is open when they start, and carry its signal. A write
 * (POST or PUT) aborts the reads in flight at once, because what they fetch may be stale once the
 * write lands, and the next batch opens BATCH_RESET_PAUSE_MS later.
 *
 * Reads asked for during that pause WAIT and then start in the new batch: they are not aborted by
 * the abort that already happened, and they do not fetch before the write had a moment to land.
 * A further write during the pause aborts nothing (none of the waiting reads has started) but
 * restarts the pause, so the new batch always opens a full pause after the last write.
 */

/** The two timer functions the batch needs; injectable so tests can drive the clock. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
}

interface Batch {
  controller: AbortController;
  /** Settles when the batch opens; already settled for a batch that opens at once. */
  opened: Promise<void>;
  open(): void;
}

function newBatch(openNow: boolean): Batch {
  // Not Promise.withResolvers: browsers from before 2024 lack it.
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  if (openNow) open();
  return { controller: new AbortController(), opened, open };
}

/** The error a cancelled request rejects with: the one fetch and TanStack Query recognise. */
export function abortError(): DOMException {
  return new DOMException("The request was aborted.", "AbortError");
}

/** One signal that aborts when any of the given ones does (AbortSignal.any where available). */
export function anySignal(signals: (AbortSignal | undefined)[]): AbortSignal {
  const list = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  if (list.length === 1) return list[0];
  if (typeof AbortSignal.any === "function") return AbortSignal.any(list);
  const controller = new AbortController();
  for (const signal of list) {
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
}

export class RequestBatch {
  #batch = newBatch(true);
  /** Set while the pause after a write runs; the batch in #batch opens when it fires. */
  #timer: unknown = undefined;

  constructor(
    readonly pauseMs: number = BATCH_RESET_PAUSE_MS,
    private readonly timers: Timers = globalThis as unknown as Timers,
  ) {}

  /** Whether a pause after a write is running (reads wait for it). */
  get pausing(): boolean {
    return this.#timer !== undefined;
  }

  /**
   * The signal a read carries: the open batch's at once, or during a pause the next batch's once
   * it opens. Rejects with an AbortError if `signal` (the caller's own) aborts while waiting, or if
   * reset() drops the waiting batch.
   */
  async join(signal?: AbortSignal): Promise<AbortSignal> {
    const batch = this.#batch;
    if (this.pausing) await waitUntilOpen(batch, signal);
    return batch.controller.signal;
  }

  /** A POST or PUT: aborts the reads in flight now; the next batch opens after the pause. */
  write(): void {
    if (!this.pausing) {
      this.#batch.controller.abort(abortError());
      this.#batch = newBatch(false);
    }
    this.timers.clearTimeout(this.#timer);
    this.#timer = this.timers.setTimeout(() => {
      this.#timer = undefined;
      this.#batch.open();
    }, this.pauseMs);
  }

  /** Navigation: aborts everything outstanding, waiting reads included, and opens a fresh batch now. */
  reset(): void {
    this.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#batch.controller.abort(abortError());
    this.#batch = newBatch(true);
  }
}

function waitUntilOpen(batch: Batch, signal?: AbortSignal): Promise<void> {
  const stop = anySignal([batch.controller.signal, signal]);
  if (stop.aborted) return Promise.reject(abortError());
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortError());
    stop.addEventListener("abort", onAbort, { once: true });
    batch.opened.then(() => {
      stop.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}

/** The page's one batch, shared by every island through api.ts. */
export const requestBatch = new RequestBatch();

/** Aborts the page's outstanding reads and starts a fresh batch. */
export function resetBatch(): void {
  requestBatch.reset();
}

const wired = new WeakSet<EventTarget>();

/**
 * Pages on the user layout reset the batch on navigation (SPEC.md section 2). Navigation here is a
 * full page load, so `pagehide` is the moment. Every island of the layout may call this; the
 * listener is added once per target.
 */
export function resetBatchOnNavigation(
  target: EventTarget = globalThis as unknown as EventTarget,
  batch: RequestBatch = requestBatch,
): void {
  if (wired.has(target)) return;
  wired.add(target);
  target.addEventListener("pagehide", () => batch.reset());
}
