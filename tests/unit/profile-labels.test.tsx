// @vitest-environment happy-dom
/**
 * A profile error names the field as the form labels it (issue 15, item 7): "Passport number is
 * required", never the name of a column the customer does not see. Each "<label> is required."
 * of an empty profile must be a label (or a list's item label) of the form that sent it.
 */
import { cleanup, render } from "@testing-library/react";
import { afterEach, describe, expect, test } from "vitest";
import BusinessProfileForm from "../../islands/BusinessProfileForm.tsx";
import PersonalProfileForm from "../../islands/PersonalProfileForm.tsx";
import { profileValues } from "../../lib/profile-values.ts";
import { validateProfile } from "../../server/profile/schema.ts";
import { resetIslands } from "../helpers/fake-api.ts";

const COUNTRIES = [{ code: "GB", name: "United Kingdom", postcode: true }];

afterEach(() => {
  cleanup();
  resetIslands();
});

/** The labels of the form's fields, as the customer reads them. */
function labels(container: HTMLElement): string[] {
  return [...container.querySelectorAll("label, legend")].map((el) =>
    (el.firstChild?.textContent ?? el.textContent ?? "").replace(/\s*\(optional\)\s*$/, "").trim()
  );
}

describe("profile errors name the field by its label", () => {
  test.each(
    [
      ["Personal", PersonalProfileForm],
      ["Business", BusinessProfileForm],
    ] as const,
  )("%s: every '... is required.' of an empty profile names a label of its form", (type, Form) => {
    const { container } = render(<Form countries={COUNTRIES} values={profileValues(type, null)} />);
    const shown = labels(container);
    const result = validateProfile(type, { address: {}, ubos: [""], directors: [""] }, new Date("2026-11-27"));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const required = Object.values(result.fields).filter((m) => m.endsWith(" is required."));
    expect(required.length).toBeGreaterThan(5);
    for (const message of required) expect(shown, message).toContain(message.replace(/ is required\.$/, ""));
    if (type === "Personal") expect(result.fields.identity).toBe("Passport number is required.");
  });
});
