import { expect, test } from "vitest";
import { periodOf, periodProblem, periodsBetween, profitQueryOf } from "../../server/profit/report.ts";

/**
 * The profit report's periods (docs/decisions/047): a movement belongs to the UTC day, the week
 * from Monday, or the month it happened in, named by the period's first day.
 */

const at = (iso: string) => Date.parse(iso);

test("a movement late on a Sunday belongs to the week that began the Monday before", () => {
  expect(periodOf(at("2026-11-29T23:59:59.999Z"), "week")).toBe("2026-11-23");
  expect(periodOf(at("2026-11-30T00:00:00Z"), "week")).toBe("2026-11-30");
  expect(periodOf(at("2026-11-29T23:59:59.999Z"), "day")).toBe("2026-11-29");
});

test("weeks and months cross the year as the calendar does", () => {
  expect(periodOf(at("2027-01-01T12:00:00Z"), "week")).toBe("2026-12-28");
  expect(periodOf(at("2027-01-01T12:00:00Z"), "month")).toBe("2027-01-01");
  expect(periodOf(at("2026-12-31T23:59:59Z"), "month")).toBe("2026-12-01");
});

test("the chart's periods cover the query's days, each once, in order", () => {
  expect(periodsBetween({ from: "2026-11-27", to: "2026-12-02", group: "week" })).toEqual(["2026-11-23", "2026-11-30"]);
  expect(periodsBetween({ from: "2026-11-30", to: "2027-01-01", group: "month" })).toEqual([
    "2026-11-01",
    "2026-12-01",
    "2027-01-01",
  ]);
  expect(periodsBetween({ from: "2026-11-30", to: "2026-11-30", group: "day" })).toEqual(["2026-11-30"]);
});

test("without dates the report is the 30 days up to today; a period it cannot draw names its field", () => {
  expect(profitQueryOf({ group: "day", by: "currency" }, at("2026-11-27T10:00:00Z"))).toEqual({
    from: "2026-10-29",
    to: "2026-11-27",
    group: "day",
    by: "currency",
  });
  expect(periodProblem({ from: "2026-11-28", to: "2026-11-27", group: "day" })?.field).toBe("to");
  expect(periodProblem({ from: "2025-11-26", to: "2026-11-27", group: "day" })?.field).toBe("group");
  expect(periodProblem({ from: "2025-11-26", to: "2026-11-27", group: "week" })).toBeNull();
});
