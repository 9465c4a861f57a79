import { useEffect, useRef } from "react";

/** Whether the keyboard is nowhere: the element it was on has gone (the browser puts it on <body>). */
export const focusLost = () => !document.activeElement || document.activeElement === document.body;

/**
 * For the heading (tabIndex -1) of a view that replaced what the keyboard was on: it takes the
 * focus when it appears, so a screen reader reads where the user now is and Tab goes on from there
 * instead of from the top of the page. `take` is false for a view the page opened with; a function
 * is asked once the view is on screen (`focusLost`: only if the focus went with what was replaced).
 */
export function useTakeFocus<T extends HTMLElement>(take: boolean | (() => boolean)) {
  const ref = useRef<T>(null);
  // Once, when the view appears (a lazily loaded form appears after it is fetched).
  useEffect(() => {
    if (typeof take === "function" ? take() : take) ref.current?.focus();
  }, []);
  return ref;
}
