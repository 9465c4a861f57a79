import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { validateXML } from "xmllint-wasm";

/** tests/fixtures/iso20022: the official schemas and a bank's sample statement (README.md there). */
export const ISO20022_FIXTURES = resolve(import.meta.dirname!, "../fixtures/iso20022");

export function fixture(name: string): string {
  return readFileSync(resolve(ISO20022_FIXTURES, name), "utf8");
}

type Schema = "pain.001.001.03.xsd" | "camt.053.001.02.xsd";

/**
 * Validates documents against one of the official XSDs with libxml2's xmllint (compiled to
 * WebAssembly), all in one run of it. Answers each document's errors, none when it is valid.
 */
export async function schemaErrorsOf(xsd: Schema, documents: readonly string[]): Promise<string[][]> {
  const names = documents.map((_, i) => `document-${i}.xml`);
  const result = await validateXML({
    xml: documents.map((contents, i) => ({ fileName: names[i], contents })),
    schema: { fileName: xsd, contents: fixture(xsd) },
  });
  const errors = documents.map(() => [] as string[]);
  for (const error of result.errors) {
    const i = names.findIndex((name) => (error.loc?.fileName ?? error.rawMessage).startsWith(name));
    if (i < 0) throw new Error(`xmllint reported an error about no document: ${error.rawMessage}`);
    errors[i].push(error.message);
  }
  if (!result.valid && errors.every((e) => e.length === 0)) throw new Error(`xmllint failed: ${result.rawOutput}`);
  return errors;
}

export async function schemaErrors(xsd: Schema, xml: string): Promise<string[]> {
  return (await schemaErrorsOf(xsd, [xml]))[0];
}
