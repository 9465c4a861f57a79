import Big from "big.js";
import { describe, expect, test } from "vitest";
import { markupOf } from "../../server/payments/pricing.ts";
import { minorUnits } from "../../server/money/currencies.ts";

/** The markup in money, as decimal arithmetic states it: converted − bought ÷ mid, rounded half up. */
function byDecimals(converted: number, bought: number, midRate: string, sell: string, buy: string): number {
  const midPerMinor = new Big(midRate).times(new Big(`1e${minorUnits(buy) - minorUnits(sell)}`));
  return converted - new Big(bought).div(midPerMinor).round(0, Big.roundHalfUp).toNumber();
}

describe("the markup in money", () => {
  test("100.00 GBP converted to 116.84 EUR at a mid rate of 1.171200 cost 0.24 GBP beyond mid", () => {
    expect(markupOf(100_00, 116_84, "1.171200", "GBP", "EUR")).toBe(24);
  });

  test("is exact whatever the currencies' digits: the same as decimal arithmetic, to the minor unit", () => {
    const pairs: [string, string, string][] = [
      ["GBP", "EUR", "1.171200"],
      ["GBP", "JPY", "188.456123"],
      ["JPY", "GBP", "0.005306"],
      ["USD", "KWD", "0.307512"],
      ["KWD", "JPY", "489.210004"],
      ["EUR", "USD", "1.000000"],
    ];
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (const [sell, buy, mid] of pairs) {
      for (let i = 0; i < 500; i++) {
        const converted = 1 + Math.floor(random() * 10 ** (3 + Math.floor(random() * 9)));
        const bought = Math.floor(
          new Big(converted).times(mid).times(`1e${minorUnits(buy) - minorUnits(sell)}`)
            .times(0.97 + random() * 0.03).toNumber(),
        );
        expect(markupOf(converted, bought, mid, sell, buy), `${converted} ${sell} → ${bought} ${buy} at ${mid}`)
          .toBe(byDecimals(converted, bought, mid, sell, buy));
      }
    }
  });
});
