/**
 * The UK modulus check: whether an account number can exist at a sort code, by Vocalink's rules.
 * The algorithm is uk-modulus-checking's (it passes every test case of Vocalink's specification);
 * the tables are Vocalink's current ones (./vocalink-tables.ts), given to it in place of the 2020
 * tables it ships, and parsed once instead of at every check. Server-only: the weight table is
 * 100 KB, too much for a browser, which checks the formats and leaves this to the server.
 */
// @ts-types="./uk-modulus-checking.d.ts"
import UkModulusChecking from "uk-modulus-checking";
import { SUBSTITUTION_TABLE, WEIGHT_TABLE } from "./vocalink-tables.ts";

/** A weight table row in the shape uk-modulus-checking reads. */
interface WeightRow {
  start: number;
  end: number;
  mod: string;
  u: number;
  v: number;
  w: number;
  x: number;
  y: number;
  z: number;
  a: number;
  b: number;
  c: number;
  d: number;
  e: number;
  f: number;
  g: number;
  h: number;
  exception: number | null;
}

const rowsOf = (table: string) =>
  table.split("\n").map((line) => line.trim()).filter((line) => line !== "").map((line) => line.split(/\s+/));

const WEIGHTS: readonly WeightRow[] = rowsOf(WEIGHT_TABLE).map(([start, end, mod, ...rest]) => {
  const [u, v, w, x, y, z, a, b, c, d, e, f, g, h, exception] = rest.map(Number);
  return {
    start: Number(start),
    end: Number(end),
    mod,
    u,
    v,
    w,
    x,
    y,
    z,
    a,
    b,
    c,
    d,
    e,
    f,
    g,
    h,
    exception: exception || null,
  };
});

const SUBSTITUTES: readonly { original: number; substitute: number }[] = rowsOf(SUBSTITUTION_TABLE).map((
  [original, substitute],
) => ({ original: Number(original), substitute: Number(substitute) }));

class CurrentVocalinkTables extends UkModulusChecking {
  override loadValacdos() {
    return WEIGHTS;
  }
  override loadScsubtab() {
    return SUBSTITUTES;
  }
}

/**
 * True when the account number passes the modulus check for the sort code (both 6 and 8 digits,
 * tidied). A sort code outside every range of the table passes: Vocalink's rule is to presume it
 * valid, since only some banks publish their checks.
 */
export function ukAccountPassesModulusCheck(sortCode: string, accountNumber: string): boolean {
  return new CurrentVocalinkTables({ sortCode, accountNumber }).isValid();
}
