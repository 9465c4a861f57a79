/**
 * The ECB's daily euro foreign exchange reference rates, in the format of
 * https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml:
 *
 *   <gesmes:Envelope xmlns:gesmes="..." xmlns="...eurofxref">
 *     <gesmes:subject>Reference rates</gesmes:subject>
 *     <gesmes:Sender><gesmes:name>European Central Bank</gesmes:name></gesmes:Sender>
 *     <Cube><Cube time="2026-11-20"><Cube currency="USD" rate="1.0823"/>...</Cube></Cube>
 *   </gesmes:Envelope>
 *
 * No XML library: a small, strict tokenizer checks that the document is well formed (tags
 * nested and closed, attributes quoted, one root element, no DOCTYPE) and then reads the Cube
 * elements. Element names are matched by their local part, so any namespace prefix works;
 * attributes may come in any order with either quote. Currencies we do not support are ignored;
 * an unparsable rate of a supported currency, a currency listed twice in a day, a missing or
 * impossible date, or a document with no supported currency is refused with a MoneyError. When
 * the document holds several days (the 90-day history file), the latest day is used.
 */
import { CURRENCY_CODES, isCurrency } from "./currencies.ts";
import { MoneyError } from "./errors.ts";
import { isIsoDate, type RateTable, validateRate } from "./rates.ts";

export const ECB_DAILY_URL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml";

/** Larger documents are refused (the daily file is about 1.5 kB, the full history a few MB). */
const MAX_DOCUMENT_LENGTH = 8_000_000;

interface Tag {
  kind: "open" | "close" | "empty";
  name: string;
  attrs: Record<string, string>;
}

const NAME = "[A-Za-z_][\\w.:-]*";
const OPEN_TAG = new RegExp(`<(${NAME})((?:\\s+${NAME}\\s*=\\s*(?:"[^"<]*"|'[^'<]*'))*)\\s*(/?)>`, "y");
const CLOSE_TAG = new RegExp(`</(${NAME})\\s*>`, "y");
const ATTRIBUTE = new RegExp(`(${NAME})\\s*=\\s*(?:"([^"<]*)"|'([^'<]*)')`, "g");

function malformed(detail: string): MoneyError {
  return new MoneyError(`The rate document is not well-formed XML: ${detail}.`);
}

function lineOf(xml: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (xml.charCodeAt(i) === 10) line++;
  return line;
}

/** The document's tags in order, after checking that it is well formed. */
function tokenize(xml: string): Tag[] {
  const tags: Tag[] = [];
  const open: string[] = [];
  let roots = 0;
  let i = 0;
  const outsideRootText = (text: string, at: number) => {
    if (open.length === 0 && text.trim() !== "") {
      throw malformed(`text outside the root element on line ${lineOf(xml, at)}`);
    }
  };
  const skipUntil = (start: number, end: string, what: string): number => {
    const j = xml.indexOf(end, start);
    if (j < 0) throw malformed(`${what} on line ${lineOf(xml, start)} is not closed`);
    return j + end.length;
  };
  while (i < xml.length) {
    const lt = xml.indexOf("<", i);
    outsideRootText(lt < 0 ? xml.slice(i) : xml.slice(i, lt), i);
    if (lt < 0) break;
    if (xml.startsWith("<?", lt)) {
      i = skipUntil(lt + 2, "?>", "a processing instruction");
    } else if (xml.startsWith("<!--", lt)) {
      i = skipUntil(lt + 4, "-->", "a comment");
    } else if (xml.startsWith("<![CDATA[", lt)) {
      if (open.length === 0) throw malformed(`CDATA outside the root element on line ${lineOf(xml, lt)}`);
      i = skipUntil(lt + 9, "]]>", "a CDATA section");
    } else if (xml.startsWith("<!", lt)) {
      throw malformed(`unexpected declaration (a DOCTYPE?) on line ${lineOf(xml, lt)}`);
    } else if (xml.startsWith("</", lt)) {
      CLOSE_TAG.lastIndex = lt;
      const m = CLOSE_TAG.exec(xml);
      if (!m) throw malformed(`a broken closing tag on line ${lineOf(xml, lt)}`);
      const expected = open.pop();
      if (expected !== m[1]) {
        throw malformed(
          expected === undefined
            ? `</${m[1]}> on line ${lineOf(xml, lt)} closes nothing`
            : `</${m[1]}> on line ${lineOf(xml, lt)} where </${expected}> was expected`,
        );
      }
      tags.push({ kind: "close", name: m[1], attrs: {} });
      i = CLOSE_TAG.lastIndex;
    } else {
      OPEN_TAG.lastIndex = lt;
      const m = OPEN_TAG.exec(xml);
      if (!m) throw malformed(`a broken tag on line ${lineOf(xml, lt)}`);
      if (open.length === 0 && ++roots > 1) {
        throw malformed(`a second root element <${m[1]}> on line ${lineOf(xml, lt)}`);
      }
      const attrs: Record<string, string> = {};
      for (const a of m[2].matchAll(ATTRIBUTE)) {
        if (Object.hasOwn(attrs, a[1])) throw malformed(`attribute ${a[1]} repeated on line ${lineOf(xml, lt)}`);
        attrs[a[1]] = a[2] ?? a[3];
      }
      const empty = m[3] === "/";
      tags.push({ kind: empty ? "empty" : "open", name: m[1], attrs });
      if (!empty) open.push(m[1]);
      i = OPEN_TAG.lastIndex;
    }
  }
  if (open.length) throw malformed(`<${open[open.length - 1]}> is never closed`);
  if (roots === 0) throw malformed("there is no root element");
  return tags;
}

const localName = (name: string) => name.slice(name.indexOf(":") + 1);

/**
 * Parses a document in the eurofxref-daily.xml format into a rate table against EUR:
 * `{ base: "EUR", as_of, source: "ecb", rates }`, rates holding "1" for EUR and the supported
 * currencies of the (latest) day, as published. Throws a MoneyError on anything malformed.
 */
export function parseEcbDaily(xml: string): RateTable & { base: "EUR"; source: "ecb" } {
  if (typeof xml !== "string" || xml.trim() === "") throw new MoneyError("The rate document is empty.");
  if (xml.length > MAX_DOCUMENT_LENGTH) throw new MoneyError("The rate document is too large.");
  const tags = tokenize(xml.replace(/^\uFEFF/, ""));
  if (localName(tags[0].name) !== "Envelope") {
    throw new MoneyError(`The rate document is not an ECB reference-rate envelope (its root is <${tags[0].name}>).`);
  }

  const days = new Map<string, Map<string, string>>();
  const stack: (Tag & { time?: string })[] = [];
  for (const tag of tags) {
    if (tag.kind === "close") {
      stack.pop();
      continue;
    }
    if (localName(tag.name) === "Cube") {
      if (Object.hasOwn(tag.attrs, "time")) {
        const time = tag.attrs.time.trim();
        if (!isIsoDate(time)) throw new MoneyError(`The rate document has an impossible date "${time}".`);
        if (!days.has(time)) days.set(time, new Map());
      }
      if (Object.hasOwn(tag.attrs, "currency")) {
        const parent = stack[stack.length - 1];
        const time = parent && localName(parent.name) === "Cube" ? parent.attrs.time?.trim() : undefined;
        if (time === undefined) {
          throw new MoneyError(`The rate of ${tag.attrs.currency} is not inside a <Cube time="..."> of a day.`);
        }
        const code = tag.attrs.currency.trim().toUpperCase();
        if (isCurrency(code)) {
          if (!Object.hasOwn(tag.attrs, "rate")) throw new MoneyError(`The rate document gives no rate for ${code}.`);
          const rate = validateRate(tag.attrs.rate, `The ECB rate of ${code}`, `rates.${code}`);
          const day = days.get(time)!;
          if (day.has(code)) throw new MoneyError(`The rate document lists ${code} twice for ${time}.`);
          day.set(code, rate);
        }
      }
    }
    if (tag.kind === "open") stack.push(tag);
  }

  if (days.size === 0) throw new MoneyError('The rate document has no <Cube time="YYYY-MM-DD"> with the day\'s rates.');
  const as_of = [...days.keys()].sort().at(-1)!;
  const day = days.get(as_of)!;
  if (day.has("EUR") && day.get("EUR") !== "1") {
    throw new MoneyError("The rate document gives EUR a rate other than 1.");
  }
  if ([...day.keys()].filter((c) => c !== "EUR").length === 0) {
    throw new MoneyError(`The rate document lists no currency we support for ${as_of}.`);
  }
  const rates: Record<string, string> = {};
  for (const code of CURRENCY_CODES) {
    if (code === "EUR") rates.EUR = "1";
    else if (day.has(code)) rates[code] = day.get(code)!;
  }
  return { base: "EUR", as_of, source: "ecb", rates };
}

export interface FetchEcbOptions {
  /** Give up after this long (default 15 s). */
  timeoutMs?: number;
}

/**
 * Fetches and parses a eurofxref-daily.xml document. `fetchFn` defaults to the global fetch
 * (tests pass their own). Throws a MoneyError when the provider cannot be reached, answers
 * anything but 2xx, or sends a document parseEcbDaily refuses.
 */
export async function fetchEcbRates(
  url: string,
  fetchFn: typeof fetch = globalThis.fetch,
  { timeoutMs = 15_000 }: FetchEcbOptions = {},
): Promise<RateTable & { base: "EUR"; source: "ecb" }> {
  let response: Response;
  try {
    response = await fetchFn(url, {
      headers: { accept: "application/xml, text/xml;q=0.9, */*;q=0.1" },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    throw new MoneyError(
      `The rate provider at ${url} could not be reached: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new MoneyError(`The rate provider at ${url} answered HTTP ${response.status}.`);
  }
  return parseEcbDaily(await response.text());
}
