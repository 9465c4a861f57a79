import { STATUS_CODES } from "node:http";

/** The standard reason phrase of an HTTP status ("Not Found"), as the `message` of a failure. */
export function statusText(status: number): string {
  return STATUS_CODES[status] ?? "Unknown Status";
}
