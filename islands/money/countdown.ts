/** How long a held quote has left, on this browser's clock. */
import { useEffect, useState } from "react";

/**
 * When the quote runs out, on this browser's clock. The server's expires_at is on the server's
 * clock, and the two may differ by more than the whole validity, so it is not compared with
 * Date.now(). Instead: the quote was made by the server at some moment between sending the
 * request and receiving the answer, so it is valid until at least sentAt + validity. Counting from
 * sentAt (not from receivedAt) errs on the safe side by the round trip; a click in the last moment
 * that still arrives late gets the 409 path ("Get a new quote").
 */
export function quoteDeadline(sentAt: number, validitySeconds: number): number {
  return sentAt + Math.max(0, validitySeconds) * 1000;
}

/** Whole seconds left, never below zero. */
export const secondsLeft = (deadline: number, now: number): number => Math.max(0, Math.ceil((deadline - now) / 1000));

/**
 * The seconds left until `deadline` (null: none), ticking once a second until it is reached. Each
 * render reads the clock: a time kept in state would be the one of the last tick, and the first
 * render of a new quote would count from when the page opened (a quote of 3 s shown as valid for
 * 60 s, until the next effect).
 */
export function useSecondsLeft(deadline: number | null): number {
  const [, setTick] = useState(0);
  useEffect(() => {
    if (deadline === null) return;
    const id = setInterval(() => {
      setTick((tick) => tick + 1);
      if (Date.now() >= deadline) clearInterval(id);
    }, 1000);
    return () => clearInterval(id);
  }, [deadline]);
  return deadline === null ? 0 : secondsLeft(deadline, Date.now());
}
