/** A country's English name, from the runtime's own list: no data shipped, so any island may use it. */

let names: Intl.DisplayNames | undefined;

/** A country's English name for a message ("Germany"), or its code when the runtime has none. */
export function countryName(code: string): string {
  names ??= new Intl.DisplayNames(["en"], { type: "region", fallback: "code" });
  try {
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}
