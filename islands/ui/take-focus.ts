import { useEffect, useRef } from "react";

/**
 * For the heading (tabIndex -1) of a view that replaced what the keyboard was on: it takes the
 * focus when it appears, so a screen reader reads where the user now is and Tab goes on from there
 * instead of from the top of the page. `take` is false for a view the page opened with.
 */
export function useTakeFocus<T extends HTMLElement>(take: boolean) {
  const ref = useRef<T>(null);
  // Once, when the view appears (a lazily loaded form appears after it is fetched).
  useEffect(() => void (take && ref.current?.focus()), []);
  return ref;
}
