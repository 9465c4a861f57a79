import { zValidator } from "@hono/zod-validator";
import type { ValidationTargets } from "hono";
import type { z } from "zod";
import { ApiError } from "./api.ts";

/** The failing fields of a zod error, by dotted path ("address.country"), first problem each. */
export function fieldsOf(error: z.ZodError): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const path = issue.path.map(String).join(".") || "_";
    fields[path] ??= issue.message;
  }
  return fields;
}

/**
 * Validates a request part with a zod schema. A failure is a 422 naming the first problem as the
 * error and every failing field, and the handler does not run: bad input changes nothing.
 */
export function valid<T extends z.ZodType, Target extends keyof ValidationTargets>(target: Target, schema: T) {
  return zValidator(target, schema, (result) => {
    if (!result.success) {
      const fields = fieldsOf(result.error as unknown as z.ZodError);
      throw new ApiError(422, Object.values(fields)[0] ?? "The request is not valid.", { fields });
    }
  });
}
