/** The description of the calls themselves (decision 042). */
import { z } from "zod";
import { defineCall } from "./define.ts";
import { CONSOLE_GUARDS } from "./guards.ts";

/** The document itself, as other tools read it; its shape is OpenAPI's. */
const document = z.looseObject({ openapi: z.literal("3.1.0"), paths: z.record(z.string(), z.unknown()) });

export const openApi = defineCall({
  method: "GET",
  path: "/openapi.json",
  // Without the console's calls (decision 074), which it does not name either.
  summary: "The OpenAPI 3.1 document of the portal's calls under /api/, generated from their contracts.",
  guards: [],
  answer: document,
  rawAnswer: true,
});

/** The whole document, console included: the console does not reveal itself to anyone else (decision 074). */
export const consoleOpenApi = defineCall({
  method: "GET",
  path: "/console/openapi.json",
  summary: "The OpenAPI 3.1 document of every call under /api/, the console's included, for administrators.",
  guards: CONSOLE_GUARDS,
  answer: document,
  rawAnswer: true,
});
