/**
 * The look of the console's fields and tables, shared by its islands (pricing, rates, receipts,
 * users, fees) and the plan editor. A chunk of its own, loaded by console pages only.
 */

export const LABEL = "block text-sm font-medium text-neutral-900 dark:text-neutral-100";
export const ERROR = "mt-1 text-sm font-medium text-red-700 dark:text-red-400";
export const inputClass = (invalid: boolean): string =>
  `block w-full rounded-md border bg-white px-3 py-2 text-sm text-neutral-900 shadow-sm placeholder:text-neutral-500 focus:outline-2 focus:outline-primary-600 disabled:opacity-60 dark:bg-neutral-950 dark:text-neutral-100 dark:placeholder:text-neutral-400 ${
    invalid ? "border-red-600 dark:border-red-400" : "border-neutral-300 dark:border-neutral-700"
  }`;
export const GHOST = "btn-ghost border border-neutral-300 dark:border-neutral-700";
export const TH = "px-4 py-3 font-semibold";
