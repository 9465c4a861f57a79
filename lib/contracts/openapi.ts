/** The description of the calls themselves (decision 042). */
import { z } from "zod";
import { defineCall } from "./define.ts";

export const openApi = defineCall({
  method: "GET",
  path: "/openapi.json",
  summary: "The OpenAPI 3.1 document of every call under /api/, generated from their contracts.",
  guards: [],
  // The document itself, as other tools read it; its shape is OpenAPI's.
  answer: z.looseObject({ openapi: z.literal("3.1.0"), paths: z.record(z.string(), z.unknown()) }),
  rawAnswer: true,
});
