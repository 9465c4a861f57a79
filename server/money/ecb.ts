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
 * fast-xml-parser's validator checks that the document is well formed (tags nested and closed,
 * attributes quoted, one root element); a DOCTYPE is refused and entities are never expanded, so
 * a document cannot make the parser fetch or multiply anything. The parsed tree is then walked for
 * the Cube elements. Element names are matched by their local part, so any namespace prefix works;
 * attributes may come in any order with either quote. Currencies we do not support are ignored;
 * an unparsable rate of a supported currency, a currency listed twice in a day, a missing or
 * impossible date, or a document with no supported currency is refused with a MoneyError. When
 * the document holds several days (the 90-day history file), the latest day is used.
 */
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { z } from "zod";
import { rateValue } from "../../lib/contracts/console-money.ts";
import { CURRENCY_CODES, isCurrency } from "./currencies.ts";
import { MoneyError } from "./errors.ts";
import type { RateTable } from "./rates.ts";

export const ECB_DAILY_URL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml";

/** Larger documents are refused (the daily file is about 1.5 kB, the full history a few MB). */
const MAX_DOCUMENT_LENGTH = 8_000_000;

const isoDate = z.iso.date();

/**
 * The document as a tree in document order: each element is `{ [name]: children, ":@": attributes }`
 * with the namespace prefix removed; attribute values stay the strings they were.
 */
const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  removeNSPrefix: true,
  parseAttributeValue: false,
  parseTagValue: false,
  processEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

interface XmlNode {
  ":@"?: Record<string, string>;
  [name: string]: XmlNode[] | Record<string, string> | string | undefined;
}

/** An element's name; text nodes ("#text") have none. */
function nameOf(node: XmlNode): string | undefined {
  return Object.keys(node).find((key) => key !== ":@" && key !== "#text");
}

function malformed(detail: string): MoneyError {
  return new MoneyError(`The rate document is not well-formed XML: ${detail}.`);
}

/** The validator's finding, in the words the operator reads in the rate feed's log. */
function validatorFinding({ code, msg, line }: { code: string; msg: string; line: number }): MoneyError {
  const unclosed = /^Unclosed tag '(.+)'\.$/.exec(msg);
  if (unclosed) return malformed(`<${unclosed[1]}> is never closed`);
  if (msg.startsWith("Multiple possible root nodes")) return malformed(`a second root element on line ${line}`);
  if (msg.startsWith("Extra text at the end")) return malformed(`text outside the root element on line ${line}`);
  if (code === "InvalidAttr") return malformed(`a broken tag on line ${line} (${msg.replace(/\.$/, "")})`);
  return malformed(`${msg.replace(/\.$/, "")} (line ${line})`);
}

/** The document's root elements, after checking that it is well formed and declares no DOCTYPE. */
function parseDocument(xml: string): XmlNode[] {
  const verdict = XMLValidator.validate(xml);
  if (verdict !== true) throw validatorFinding(verdict.err);
  const doctype = xml.indexOf("<!DOCTYPE");
  if (doctype >= 0) {
    const line = xml.slice(0, doctype).split("\n").length;
    throw new MoneyError(`The rate document declares a DOCTYPE on line ${line}; a rate document needs none.`);
  }
  let tree: XmlNode[];
  try {
    tree = parser.parse(xml) as XmlNode[];
  } catch (e) {
    // Well formed, but beyond what the parser accepts (too deeply nested, say).
    throw new MoneyError(`The rate document could not be read: ${e instanceof Error ? e.message : String(e)}`);
  }
  const roots = tree.filter((node) => nameOf(node) !== undefined);
  if (roots.length === 0) throw malformed("there is no root element");
  return roots;
}

/**
 * Parses a document in the eurofxref-daily.xml format into a rate table against EUR:
 * `{ base: "EUR", as_of, source: "ecb", rates }`, rates holding "1" for EUR and the supported
 * currencies of the (latest) day, as published. Throws a MoneyError on anything malformed.
 */
export function parseEcbDaily(xml: string): RateTable & { base: "EUR"; source: "ecb" } {
  if (typeof xml !== "string" || xml.trim() === "") throw new MoneyError("The rate document is empty.");
  if (xml.length > MAX_DOCUMENT_LENGTH) throw new MoneyError("The rate document is too large.");
  const [root] = parseDocument(xml.replace(/^\uFEFF/, ""));
  if (nameOf(root) !== "Envelope") {
    throw new MoneyError(`The rate document is not an ECB reference-rate envelope (its root is <${nameOf(root)}>).`);
  }

  const days = new Map<string, Map<string, string>>();
  const visit = (node: XmlNode, parent: XmlNode | undefined) => {
    const name = nameOf(node);
    if (name === undefined) return;
    const attrs = node[":@"] ?? {};
    if (name === "Cube") {
      if (Object.hasOwn(attrs, "time")) {
        const time = attrs.time.trim();
        if (!isoDate.safeParse(time).success) {
          throw new MoneyError(`The rate document has an impossible date "${time}".`);
        }
        if (!days.has(time)) days.set(time, new Map());
      }
      if (Object.hasOwn(attrs, "currency")) readRate(attrs, parent);
    }
    for (const child of node[name] as XmlNode[]) visit(child, node);
  };
  const readRate = (attrs: Record<string, string>, parent: XmlNode | undefined) => {
    const time = parent && nameOf(parent) === "Cube" ? parent[":@"]?.time?.trim() : undefined;
    if (time === undefined) {
      throw new MoneyError(`The rate of ${attrs.currency} is not inside a <Cube time="..."> of a day.`);
    }
    const code = attrs.currency.trim().toUpperCase();
    if (!isCurrency(code)) return;
    if (!Object.hasOwn(attrs, "rate")) throw new MoneyError(`The rate document gives no rate for ${code}.`);
    const rate = rateValue(`The ECB rate of ${code}`).safeParse(attrs.rate);
    if (!rate.success) throw new MoneyError(rate.error.issues[0].message, `rates.${code}`);
    const day = days.get(time)!;
    if (day.has(code)) throw new MoneyError(`The rate document lists ${code} twice for ${time}.`);
    day.set(code, rate.data);
  };
  visit(root, undefined);

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
