/**
 * Every text field of every call refuses what is not text a person typed (issue 14, finding 7;
 * decision 024): control characters, characters that reorder what a reader sees, and broken
 * Unicode. The walk finds the fields in the contracts themselves, so a field added tomorrow that
 * forgets `text()` (lib/contracts/common.ts) fails here.
 */
import { beforeAll, describe, expect, test } from "vitest";
import type { CallContract } from "../../lib/contracts/define.ts";
import { text } from "../../lib/contracts/common.ts";
import { allContracts, GENERIC_WORDS, inputsOf, valueAt } from "../helpers/contract-inputs.ts";

const REFUSED = {
  "a null character": "\u0000",
  "a null character inside a name": "Ada\u0000Lovelace",
  "a right-to-left override": "\u202E",
  "a right-to-left override inside a name": "Ada \u202Eecalevol",
  "a left-to-right isolate": "Ada\u2066x\u2069",
  "a lone surrogate": "\ud800",
  "a lone surrogate inside a name": "Ada\udfff",
  "a line break in a one-line field": "Ada\nLovelace",
};

let contracts: Map<string, CallContract>;
beforeAll(async () => {
  contracts = await allContracts();
});

describe("every text field of every call", () => {
  test("the walk finds the calls and their text fields", () => {
    const textFields = [...contracts].flatMap(([key, contract]) =>
      inputsOf(key, contract).flatMap(({ fields }) => fields.filter((f) => f.kind === "string"))
    );
    expect(contracts.size).toBeGreaterThan(30);
    expect(textFields.length).toBeGreaterThan(60);
  });

  test("every input is described by a schema the walk can read, or checked behind by one", () => {
    const opaque = [...contracts].flatMap(([key, contract]) =>
      inputsOf(key, contract).flatMap(({ part, opaque }) => opaque.map((at) => `${key} ${part} ${at || "(all)"}`))
    );
    expect(opaque, "Describe these inputs in zod, or name the schema that checks them in CHECKED_BEHIND").toEqual([]);
  });

  for (const [what, value] of Object.entries(REFUSED)) {
    test(`refuses ${what}, naming the field`, () => {
      const accepted: string[] = [];
      for (const [key, contract] of contracts) {
        for (const { part, schema, fields } of inputsOf(key, contract)) {
          const lineBreak = value === REFUSED["a line break in a one-line field"];
          for (
            const field of fields.filter((f) =>
              (f.kind === "string" || f.kind === "other") && !(lineBreak && f.multiline)
            )
          ) {
            const at = field.path.join(".");
            const result = schema.safeParse(valueAt(field.path, value));
            const issue = result.success ? undefined : result.error.issues.find((i) => i.path.join(".") === at);
            if (!issue) accepted.push(`${key} ${part} ${at}`);
            else if (GENERIC_WORDS.test(issue.message)) accepted.push(`${key} ${part} ${at}: "${issue.message}"`);
          }
        }
      }
      expect(accepted, `These fields accept ${what} (or refuse it in zod's words)`).toEqual([]);
    });
  }
});

describe("text()", () => {
  const name = text({ label: "The payer's name", max: 10 });
  const notes = text({ label: "The note", max: 100, multiline: true });
  const password = text({ label: "Your password", max: 100, secret: true });

  test("trims and normalises to NFC: a name typed with a combining accent is the same name", () => {
    expect(name.parse("  Jose\u0301 ")).toBe("José");
    expect(name.parse("José")).toBe("José");
  });

  test("names the field and the problem", () => {
    const problem = (schema: typeof name, value: unknown) => schema.safeParse(value).error?.issues[0].message;
    expect(problem(name, undefined)).toBe("The payer's name is required.");
    expect(problem(name, "   ")).toBe("The payer's name is required.");
    expect(problem(name, 7)).toBe("The payer's name must be text.");
    expect(problem(name, "Maximilian L")).toBe("The payer's name must have at most 10 characters.");
    expect(problem(name, "Ada\u0000")).toBe(
      "The payer's name contains a line break or a control character, which is not allowed.",
    );
    expect(problem(name, "Ada\u202E")).toBe(
      "The payer's name contains a character that changes the direction of text, which is not allowed.",
    );
    expect(problem(name, "Ada\ud800")).toBe("The payer's name contains a broken character (invalid Unicode).");
  });

  test("counts characters, not UTF-16 units: ten emoji fit in ten", () => {
    expect(name.parse("😀".repeat(10))).toBe("😀".repeat(10));
  });

  test("a multi-line text keeps its line breaks (CRLF as LF) and still refuses other controls", () => {
    expect(notes.parse("first\r\nsecond\n\tthird")).toBe("first\nsecond\n\tthird");
    expect(notes.safeParse("first\u0007").success).toBe(false);
    expect(notes.safeParse("first\u202Esecond").success).toBe(false);
  });

  test("a secret is kept exactly as sent, spaces and all, and refuses the same characters", () => {
    expect(password.parse("  two words  ")).toBe("  two words  ");
    expect(password.parse("Jose\u0301")).toBe("Jose\u0301");
    expect(password.safeParse("pass\u0000word").success).toBe(false);
    expect(password.safeParse("pass\ud800word").success).toBe(false);
  });
});
