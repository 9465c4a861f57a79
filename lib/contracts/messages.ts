/**
 * Refusals in the product's words (decision 024). A field's label is declared where the field is
 * (`labelled(schema, "The payer's name")`, or the `label` of `text()` in ./common.ts), written as
 * it starts a sentence, so that a refusal can name the field the way the form does.
 */
import { z } from "zod";

/** The label of each field that declares one (a registry: labels are looked up, never copied). */
export const fieldLabels = z.registry<{ label: string }>();

/** Declares the label a field is named by in refusals, on the schema itself (which it returns). */
export function labelled<S extends z.ZodType>(schema: S, label: string): S {
  fieldLabels.add(schema, { label });
  return schema;
}
