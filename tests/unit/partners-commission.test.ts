import { describe, expect, test } from "vitest";
import { bpsOfPercent, percentOfBps } from "../../lib/contracts/partners.ts";
import { commissionOf, referrerSite } from "../../server/partners/referrals.ts";

/** The arithmetic of decision 051: shares in basis points, commissions rounded once, exactly. */
describe("a partner's commission", () => {
  test.each([
    [10_000, 1250, 1250],
    [1, 5000, 1], // half a penny rounds away from zero
    [1, 4999, 0],
    [-1, 5000, -1], // a refund's half penny too
    [333, 3333, 111], // 110.9889
    [0, 2500, 0],
    [Number.MAX_SAFE_INTEGER, 10_000, Number.MAX_SAFE_INTEGER], // no float on the way
  ])("of %i minor units at %i bps is %i", (income, bps, commission) => {
    expect(commissionOf(income, bps)).toBe(commission);
  });
});

describe("a share in percent", () => {
  test.each([["12.5", 1250], ["0", 0], ["100", 10_000], ["0.01", 1], ["7.25", 725]])("%s%% is %i bps", (p, bps) => {
    expect(bpsOfPercent(p)).toBe(bps);
  });
  test.each([[1250, "12.50"], [1, "0.01"], [10_000, "100.00"], [0, "0.00"]])("%i bps is shown %s%%", (bps, p) => {
    expect(percentOfBps(bps)).toBe(p);
  });
});

describe("the referring site", () => {
  test.each([
    ["https://news.example.com/a?b=1", "news.example.com"],
    ["http://localhost:8000/", "localhost:8000"],
    ["not an address", "not an address"],
    [null, null],
  ])("of %s is %s", (referrer, site) => {
    expect(referrerSite(referrer)).toBe(site);
  });
});
