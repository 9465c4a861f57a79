import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";
import { log } from "../log.ts";
import { requestIdOf } from "./request-log.ts";

/**
 * The graceful stop's first step (main.ts; decision 041): the requests in flight finish, and no
 * new one starts.
 *
 * Deno's `server.shutdown()` lets a request whose body has arrived finish, but closes the body of
 * one still being received: its handler fails reading it (a 500 for a request that was under
 * way). So before shutting the server down, the portal stops taking new requests (each is answered
 * 503 with `Retry-After: 1` and `Connection: close`, which a load balancer or a client retries
 * elsewhere or a moment later, against the next process; the health check is one of them, so a
 * load balancer stops sending here) and waits for every request already started to answer. Then
 * `server.shutdown()` has only finished answers to deliver.
 */
export class Draining {
  readonly #inFlight = new Set<Promise<unknown>>();
  #stopping = false;

  /** Whether the stop has begun. */
  get stopping(): boolean {
    return this.#stopping;
  }

  /** Mounted near the top: counts the requests under way, and refuses new ones once stopping. */
  middleware(): MiddlewareHandler<AppEnv> {
    return async (c, next) => {
      if (this.#stopping) {
        const refusal = {
          error: "The portal is restarting: try again in a moment.",
          message: "Service Unavailable",
          request_id: requestIdOf(c),
        };
        return c.json(refusal, 503, { "Retry-After": "1", Connection: "close" });
      }
      const answered = next();
      this.#inFlight.add(answered);
      try {
        await answered;
      } finally {
        this.#inFlight.delete(answered);
      }
    };
  }

  /**
   * Stops taking requests and resolves once every request under way has answered, or after
   * `limitMs` (then the ones left are counted in the log, and the server's shutdown deals with them).
   */
  async drain(limitMs: number): Promise<void> {
    this.#stopping = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), limitMs)));
    const all = Promise.allSettled([...this.#inFlight]);
    const outcome = await Promise.race([all, late]);
    clearTimeout(timer);
    if (outcome === "late") log.warn("requests still under way at the stop", { in_flight: this.#inFlight.size });
  }
}
