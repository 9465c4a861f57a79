import Big from "big.js";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { MoneyError } from "../../server/money/amounts.ts";
import { CURRENCY_CODES } from "../../server/money/currencies.ts";
import { ECB_DAILY_URL, fetchEcbRates, parseEcbDaily } from "../../server/money/ecb.ts";
import {
  crossRate,
  formatRate,
  INDICATIVE_RATES,
  mergeRateTables,
  rateDecimals,
  ratesFor,
  type RateTable,
} from "../../server/money/rates.ts";
import { rateTableUpdate } from "../../lib/contracts/console-money.ts";

function moneyError(fn: () => unknown): MoneyError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(MoneyError);
    return e as MoneyError;
  }
  throw new Error("expected a MoneyError, nothing was thrown");
}

/** A table with round numbers whose cross rates are easy to check by hand. */
const SIMPLE: RateTable = {
  base: "EUR",
  as_of: "2026-11-20",
  source: "admin",
  rates: { EUR: "1", GBP: "0.8", USD: "1.25", JPY: "160", KWD: "0.33", CHF: "0.96" },
};

/**
 * A sample of https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml, written the way the
 * ECB writes it (single-quoted attributes, tab indentation), with every currency the ECB
 * publishes: some we support, some we do not (ISK, TRY, BRL, CNY, IDR, ILS, KRW, MXN, MYR, PHP,
 * RON, THB), and none of AED, KWD or BHD, which the ECB does not publish.
 */
const ECB_SAMPLE = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
	<gesmes:subject>Reference rates</gesmes:subject>
	<gesmes:Sender>
		<gesmes:name>European Central Bank</gesmes:name>
	</gesmes:Sender>
	<Cube>
		<Cube time='2026-11-20'>
			<Cube currency='USD' rate='1.0823'/>
			<Cube currency='JPY' rate='163.42'/>
			<Cube currency='CZK' rate='25.112'/>
			<Cube currency='DKK' rate='7.4589'/>
			<Cube currency='GBP' rate='0.84713'/>
			<Cube currency='HUF' rate='402.15'/>
			<Cube currency='PLN' rate='4.3120'/>
			<Cube currency='RON' rate='4.9770'/>
			<Cube currency='SEK' rate='11.5430'/>
			<Cube currency='CHF' rate='0.9467'/>
			<Cube currency='ISK' rate='150.30'/>
			<Cube currency='NOK' rate='11.8105'/>
			<Cube currency='TRY' rate='37.214'/>
			<Cube currency='AUD' rate='1.6612'/>
			<Cube currency='BRL' rate='6.2830'/>
			<Cube currency='CAD' rate='1.5124'/>
			<Cube currency='CNY' rate='7.8392'/>
			<Cube currency='HKD' rate='8.4251'/>
			<Cube currency='IDR' rate='17185.62'/>
			<Cube currency='ILS' rate='4.0305'/>
			<Cube currency='INR' rate='91.4880'/>
			<Cube currency='KRW' rate='1512.34'/>
			<Cube currency='MXN' rate='21.9850'/>
			<Cube currency='MYR' rate='4.8470'/>
			<Cube currency='NZD' rate='1.8421'/>
			<Cube currency='PHP' rate='63.792'/>
			<Cube currency='SGD' rate='1.4563'/>
			<Cube currency='THB' rate='37.502'/>
			<Cube currency='ZAR' rate='19.6120'/>
		</Cube>
	</Cube>
</gesmes:Envelope>
`;

const ECB_EXPECTED = {
  EUR: "1",
  USD: "1.0823",
  JPY: "163.42",
  CZK: "25.112",
  DKK: "7.4589",
  GBP: "0.84713",
  HUF: "402.15",
  PLN: "4.312",
  SEK: "11.543",
  CHF: "0.9467",
  NOK: "11.8105",
  AUD: "1.6612",
  CAD: "1.5124",
  HKD: "8.4251",
  INR: "91.488",
  NZD: "1.8421",
  SGD: "1.4563",
  ZAR: "19.612",
};

describe("the indicative set", () => {
  test("is labelled indicative with its date and covers every currency", () => {
    expect(INDICATIVE_RATES.source).toBe("indicative");
    expect(INDICATIVE_RATES.base).toBe("EUR");
    expect(INDICATIVE_RATES.as_of).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(Object.keys(INDICATIVE_RATES.rates).sort()).toEqual([...CURRENCY_CODES].sort());
    expect(INDICATIVE_RATES.rates.EUR).toBe("1");
    // It passes the same validation as an administrator's update, every rate kept as its value.
    const checked = rateTableUpdate.parse(INDICATIVE_RATES);
    expect(Object.keys(checked.rates).sort()).toEqual(Object.keys(INDICATIVE_RATES.rates).sort());
    for (const [code, rate] of Object.entries(INDICATIVE_RATES.rates)) {
      expect(new Big(checked.rates[code]).eq(rate), code).toBe(true);
    }
    const answer = ratesFor(INDICATIVE_RATES, "EUR");
    expect(answer.indicative).toBe(true);
    expect(answer.as_of).toBe(INDICATIVE_RATES.as_of);
  });

  test("is realistic: pegs and rough levels hold", () => {
    const usd = (code: string) => crossRate(INDICATIVE_RATES, "USD", code).toNumber();
    expect(usd("AED")).toBeCloseTo(3.6725, 3);
    expect(usd("HKD")).toBeGreaterThan(7.75);
    expect(usd("HKD")).toBeLessThan(7.85);
    expect(usd("BHD")).toBeCloseTo(0.376, 3);
    expect(crossRate(INDICATIVE_RATES, "EUR", "DKK").toNumber()).toBeCloseTo(7.46, 1);
    expect(crossRate(INDICATIVE_RATES, "GBP", "EUR").toNumber()).toBeGreaterThan(1);
  });
});

describe("crossRate", () => {
  test("from the base is the table's rate; to the base is its inverse", () => {
    expect(crossRate(SIMPLE, "EUR", "USD").toFixed()).toBe("1.25");
    expect(crossRate(SIMPLE, "USD", "EUR").toFixed()).toBe("0.8");
    expect(crossRate(SIMPLE, "EUR", "EUR").toFixed()).toBe("1");
  });

  test("between two other currencies goes through the base", () => {
    // GBP → EUR → USD: 1 / 0.8 × 1.25
    expect(crossRate(SIMPLE, "GBP", "USD").toFixed()).toBe("1.5625");
    expect(crossRate(SIMPLE, "USD", "GBP").toFixed()).toBe("0.64");
    expect(crossRate(SIMPLE, "GBP", "JPY").toFixed()).toBe("200");
    expect(crossRate(SIMPLE, "GBP", "KWD").toFixed()).toBe("0.4125");
    // Not exact in decimals: 30 places, rounded half-even.
    expect(crossRate(SIMPLE, "KWD", "GBP").toFixed()).toBe("2.424242424242424242424242424242");
    expect(crossRate(SIMPLE, "JPY", "KWD").toFixed()).toBe("0.0020625");
  });

  test("missing and unknown currencies are refused", () => {
    expect(moneyError(() => crossRate(SIMPLE, "GBP", "SEK")).message).toBe(
      "There is no rate for SEK in the rates of 2026-11-20.",
    );
    expect(moneyError(() => crossRate(SIMPLE, "XYZ", "GBP")).message).toBe('"XYZ" is not a currency we support.');
  });

  test("properties: inverse and triangle through any currencies of the indicative set", () => {
    const code = fc.constantFrom(...CURRENCY_CODES);
    const close = (a: Big, b: Big) => a.minus(b).abs().lte(b.times("1e-24"));
    fc.assert(
      fc.property(code, code, code, (a, b, c) => {
        const ab = crossRate(INDICATIVE_RATES, a, b);
        expect(close(ab.times(crossRate(INDICATIVE_RATES, b, a)), new Big(1))).toBe(true);
        expect(close(ab.times(crossRate(INDICATIVE_RATES, b, c)), crossRate(INDICATIVE_RATES, a, c))).toBe(true);
        expect(ab.gt(0)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe("printing rates", () => {
  test("6 decimal places, more below 0.1 so that 6 significant digits show", () => {
    expect(rateDecimals(new Big("1.1376"))).toBe(6);
    expect(rateDecimals(new Big("206.48"))).toBe(6);
    expect(rateDecimals(new Big("0.4036"))).toBe(6);
    expect(rateDecimals(new Big("0.0999"))).toBe(7);
    expect(rateDecimals(new Big("0.00205"))).toBe(8);
    expect(formatRate(new Big("0.002054321987"))).toBe("0.00205432");
    expect(formatRate(new Big("1.5"))).toBe("1.500000");
  });

  test("half-even by default", () => {
    expect(formatRate(new Big("1.0000005"))).toBe("1.000000");
    expect(formatRate(new Big("1.0000015"))).toBe("1.000002");
    expect(formatRate(new Big("1.00000150001"))).toBe("1.000002");
    expect(formatRate(new Big("1.0000019"), 6, Big.roundDown)).toBe("1.000001");
  });

  test("ratesFor answers every currency of the table against the requested base", () => {
    expect(ratesFor(SIMPLE, "GBP")).toEqual({
      base: "GBP",
      as_of: "2026-11-20",
      source: "admin",
      indicative: false,
      rates: {
        CHF: "1.200000",
        EUR: "1.250000",
        GBP: "1.000000",
        JPY: "200.000000",
        KWD: "0.412500",
        USD: "1.562500",
      },
    });
    const fromJpy = ratesFor(SIMPLE, "JPY").rates;
    expect(fromJpy.KWD).toBe("0.00206250");
    expect(fromJpy.GBP).toBe("0.00500000");
    const half = ratesFor({ ...SIMPLE, rates: { EUR: "1", USD: "1.0000005", GBP: "1.0000015" } }, "EUR").rates;
    expect(half).toEqual({ EUR: "1.000000", GBP: "1.000002", USD: "1.000000" });
    expect(() => ratesFor(SIMPLE, "SEK")).toThrow("There is no rate for SEK");
    expect(() => ratesFor(SIMPLE, "xyz")).toThrow(MoneyError);
  });
});

describe("the ECB daily reference rates", () => {
  test("the sample parses: the day, EUR as base, supported currencies only", () => {
    const table = parseEcbDaily(ECB_SAMPLE);
    expect(table).toEqual({ base: "EUR", as_of: "2026-11-20", source: "ecb", rates: ECB_EXPECTED });
    expect(table.rates).not.toHaveProperty("ISK");
    expect(table.rates).not.toHaveProperty("AED");
    // The result is a valid table, usable for cross rates.
    expect(rateTableUpdate.parse(table)).toEqual({
      base: table.base,
      as_of: table.as_of,
      rates: table.rates,
      confirm_changes: [],
    });
    expect(crossRate(table, "GBP", "USD").toFixed(6)).toBe("1.277608");
  });

  test("written differently but equivalently: one line, double quotes, attributes swapped, comments, no declaration", () => {
    const variant = ECB_SAMPLE.replace(/^<\?xml[^>]*\?>\s*/, "<!-- ECB -->")
      .replace(/\s*\n\s*/g, "")
      .replace(/'/g, '"')
      .replace(
        '<Cube currency="GBP" rate="0.84713"/>',
        '<Cube  rate="0.84713"\n currency="GBP" ></Cube><!-- <Cube currency="GBP" rate="9"/> -->',
      );
    expect(parseEcbDaily(variant)).toEqual(parseEcbDaily(ECB_SAMPLE));
    const prefixed = ECB_SAMPLE.replaceAll("<Cube", "<ecb:Cube").replaceAll("</Cube", "</ecb:Cube");
    expect(parseEcbDaily(prefixed).rates).toEqual(ECB_EXPECTED);
    expect(parseEcbDaily("\uFEFF" + ECB_SAMPLE).as_of).toBe("2026-11-20");
  });

  test("several days (the 90-day history format): the latest day is used", () => {
    const older =
      `<Cube time='2026-11-19'><Cube currency='USD' rate='1.0700'/><Cube currency='GBP' rate='0.8500'/></Cube>`;
    const doc = ECB_SAMPLE.replace("<Cube>", `<Cube>${older}`);
    const table = parseEcbDaily(doc);
    expect(table.as_of).toBe("2026-11-20");
    expect(table.rates.USD).toBe("1.0823");
    const newerFirst = ECB_SAMPLE.replace("</Cube>\n\t</Cube>", `</Cube>${older}</Cube>`);
    expect(parseEcbDaily(newerFirst).rates.USD).toBe("1.0823");
  });

  const malformed: [string, string, RegExp][] = [
    ["empty", "", /empty/],
    ["truncated", ECB_SAMPLE.slice(0, ECB_SAMPLE.indexOf("<Cube currency='HUF'") + 10), /not well-formed/],
    ["unclosed element", ECB_SAMPLE.replace("</gesmes:Envelope>", ""), /not well-formed.*never closed/],
    [
      "crossed elements",
      ECB_SAMPLE.replace("</Cube>\n\t</Cube>", "</Cube>\n\t</gesmes:Envelope></Cube>"),
      /not well-formed/,
    ],
    ["unquoted attribute", ECB_SAMPLE.replace("rate='1.0823'", "rate=1.0823"), /not well-formed.*broken tag/],
    ["two roots", ECB_SAMPLE + "<gesmes:Envelope></gesmes:Envelope>", /second root/],
    ["text after the root", ECB_SAMPLE + "trailing", /outside the root/],
    ["a DOCTYPE", ECB_SAMPLE.replace("?>", '?><!DOCTYPE x [<!ENTITY a "b">]>'), /DOCTYPE/],
    ["HTML", "<!doctype html><html><body>Service unavailable</body></html>", /not well-formed/],
    ["another XML document", "<rates><rate currency='USD'>1.08</rate></rates>", /not an ECB reference-rate envelope/],
    ["JSON", '{"USD": 1.0823}', /not well-formed/],
    ["no day", ECB_SAMPLE.replace(/<Cube time=[^]*<\/Cube>(\s*<\/Cube>)/, "$1"), /no <Cube time=/],
    ["a day without its time", ECB_SAMPLE.replace("<Cube time='2026-11-20'>", "<Cube>"), /not inside a <Cube time/],
    ["an impossible date", ECB_SAMPLE.replace("2026-11-20", "2026-02-30"), /impossible date "2026-02-30"/],
    [
      "a rate with a comma",
      ECB_SAMPLE.replace("rate='1.0823'", "rate='1,0823'"),
      /ECB rate of USD must be a plain positive decimal/,
    ],
    ["a negative rate", ECB_SAMPLE.replace("rate='0.84713'", "rate='-0.84713'"), /ECB rate of GBP/],
    ["a zero rate", ECB_SAMPLE.replace("rate='0.84713'", "rate='0'"), /ECB rate of GBP must be more than zero/],
    ["a missing rate", ECB_SAMPLE.replace(" rate='0.84713'", ""), /gives no rate for GBP/],
    [
      "a currency twice",
      ECB_SAMPLE.replace("<Cube currency='JPY'", "<Cube currency='USD' rate='1.09'/><Cube currency='JPY'"),
      /lists USD twice/,
    ],
    [
      "a rate outside a day",
      ECB_SAMPLE.replace("<Cube>", "<Cube><Cube currency='USD' rate='1.1'/>"),
      /not inside a <Cube time/,
    ],
    [
      "no supported currency",
      ECB_SAMPLE.replace(/<Cube currency='(?!ISK)[A-Z]{3}' rate='[\d.]+'\/>/g, ""),
      /no currency we support/,
    ],
  ];
  test.each(malformed)("refused: %s", (_name, xml, message) => {
    expect(moneyError(() => parseEcbDaily(xml)).message).toMatch(message);
  });

  test("unknown currencies are ignored even when their rate is odd", () => {
    const doc = ECB_SAMPLE.replace("rate='150.30'", "rate='n/a'");
    expect(parseEcbDaily(doc).rates).toEqual(ECB_EXPECTED);
  });

  test("fetchEcbRates fetches and parses, and reports provider failures clearly", async () => {
    const calls: string[] = [];
    const ok = ((url: string) => {
      calls.push(url);
      return Promise.resolve(new Response(ECB_SAMPLE, { headers: { "content-type": "text/xml" } }));
    }) as typeof fetch;
    const table = await fetchEcbRates(ECB_DAILY_URL, ok);
    expect(calls).toEqual([ECB_DAILY_URL]);
    expect(table.rates).toEqual(ECB_EXPECTED);

    const down = (() => Promise.resolve(new Response("busy", { status: 503 }))) as typeof fetch;
    await expect(fetchEcbRates("http://rates.test/daily.xml", down)).rejects.toThrow(
      "The rate provider at http://rates.test/daily.xml answered HTTP 503.",
    );
    const offline = (() => Promise.reject(new TypeError("getaddrinfo ENOTFOUND"))) as typeof fetch;
    await expect(fetchEcbRates("http://rates.test/daily.xml", offline)).rejects.toThrow(
      /could not be reached: getaddrinfo ENOTFOUND/,
    );
    const html = (() => Promise.resolve(new Response("<html><body>Moved</body>"))) as typeof fetch;
    await expect(fetchEcbRates("http://rates.test/daily.xml", html)).rejects.toBeInstanceOf(MoneyError);
  });

  test("merged with the indicative set, the currencies the ECB lacks are carried over and listed", () => {
    const { table, carried } = mergeRateTables(INDICATIVE_RATES, parseEcbDaily(ECB_SAMPLE));
    expect(carried).toEqual(["AED", "BHD", "KWD"]);
    expect(table.as_of).toBe("2026-11-20");
    expect(table.source).toBe("ecb");
    expect(table.rates.USD).toBe("1.0823");
    expect(table.rates.KWD).toBe(INDICATIVE_RATES.rates.KWD);
    expect(Object.keys(table.rates).sort()).toEqual([...CURRENCY_CODES].sort());
    // Carried across bases: an older table against USD is re-expressed against EUR.
    const olderUsd: RateTable = {
      base: "USD",
      as_of: "2026-11-01",
      source: "admin",
      rates: { USD: "1", EUR: "0.8", AED: "3.6725" },
    };
    const merged = mergeRateTables(olderUsd, parseEcbDaily(ECB_SAMPLE));
    expect(merged.carried).toEqual(["AED"]);
    expect(merged.table.rates.AED).toBe("4.590625");
  });
});

describe("rateTableUpdate (an administrator's update, PUT console/rates)", () => {
  const update = { base: "EUR", as_of: "2026-11-21", rates: { USD: "1.0850", GBP: " 0.8450", JPY: "0163.5" } };

  test("a good update is normalised: base added as 1, plain decimals; the date may be left out", () => {
    expect(rateTableUpdate.parse(update)).toEqual({
      base: "EUR",
      as_of: "2026-11-21",
      rates: { EUR: "1", GBP: "0.845", JPY: "163.5", USD: "1.085" },
      confirm_changes: [],
    });
    expect(rateTableUpdate.parse({ ...update, confirm_changes: ["GBP", "JPY"] }).confirm_changes).toEqual([
      "GBP",
      "JPY",
    ]);
    expect(rateTableUpdate.parse({ ...update, rates: { ...update.rates, EUR: "1.000" } }).rates.EUR).toBe("1");
    expect(rateTableUpdate.parse({ base: "EUR", rates: update.rates }).as_of).toBeUndefined();
    expect(rateTableUpdate.parse({ base: "USD", as_of: "2026-11-21", rates: { AED: "3.6725" } }).rates).toEqual({
      AED: "3.6725",
      USD: "1",
    });
  });

  const bad: [string, unknown, string, string | undefined][] = [
    ["not an object", "EUR 1", "The rates must be an object with base, as_of and rates.", undefined],
    ["unknown base", { ...update, base: "XXX" }, 'The base "XXX" is not a currency we support.', "base"],
    ["impossible date", { ...update, as_of: "2026-13-01" }, "as_of must be a date written YYYY-MM-DD.", "as_of"],
    [
      "date with a time",
      { ...update, as_of: "2026-11-21T10:00:00Z" },
      "as_of must be a date written YYYY-MM-DD.",
      "as_of",
    ],
    [
      "rates not an object",
      { ...update, rates: ["1.08"] },
      "rates must be an object of currency codes and decimal strings.",
      "rates",
    ],
    [
      "unknown currency",
      { ...update, rates: { ...update.rates, XYZ: "2" } },
      '"XYZ" is not a currency we support.',
      "rates.XYZ",
    ],
    ["lower-case code", { ...update, rates: { usd: "1.08" } }, '"usd" is not a currency we support.', "rates.usd"],
    [
      "a number",
      { ...update, rates: { USD: 1.08 } },
      'The rate of USD must be written as a decimal string such as "1.0823".',
      "rates.USD",
    ],
    [
      "negative",
      { ...update, rates: { USD: "-1.08" } },
      'The rate of USD must be a plain positive decimal such as "1.0823".',
      "rates.USD",
    ],
    ["zero", { ...update, rates: { USD: "0.000" } }, "The rate of USD must be more than zero.", "rates.USD"],
    [
      "exponent",
      { ...update, rates: { USD: "1e3" } },
      'The rate of USD must be a plain positive decimal such as "1.0823".',
      "rates.USD",
    ],
    [
      "text",
      { ...update, rates: { USD: "abc" } },
      'The rate of USD must be a plain positive decimal such as "1.0823".',
      "rates.USD",
    ],
    ["huge", { ...update, rates: { USD: "1000000000000.5" } }, "The rate of USD is too large.", "rates.USD"],
    [
      "base not 1",
      { ...update, rates: { ...update.rates, EUR: "1.01" } },
      "The rate of EUR, the base, must be 1.",
      "rates.EUR",
    ],
    [
      "only the base",
      { ...update, rates: { EUR: "1" } },
      "Give the rate of at least one currency besides the base.",
      "rates",
    ],
  ];
  test.each(bad)("refused: %s", (_name, input, message, field) => {
    const result = rateTableUpdate.safeParse(input);
    expect(result.success, "the update is refused").toBe(false);
    // The first problem is the one the API answers as `error`, at its field in `fields`.
    const [first] = result.error!.issues;
    expect(first.message).toBe(message);
    expect(first.path.join(".") || undefined).toBe(field);
  });
});
