/**
 * A spreadsheet runs a cell that starts with = + - @ (or a tab or carriage return) as a formula.
 * Text that people typed (a recipient named "=HYPERLINK(...)", a partner's name) is therefore
 * written into our CSV files with a leading apostrophe, as OWASP advises. Amounts, dates and ids
 * are the server's own and never go through it. Every CSV the portal writes uses this one guard.
 */
export function spreadsheetText<T extends string | null>(value: T): T {
  return (value !== null && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value) as T;
}
