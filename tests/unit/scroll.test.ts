// @vitest-environment happy-dom
import { expect, test, vi } from "vitest";
import { scrollToArrivalTarget } from "../../islands/lib/scroll.ts";

test("arriving with a hash shows its target", () => {
  document.body.innerHTML = `<div style="height:4000px"></div><h2 id="fees">Fees</h2>`;
  const target = document.getElementById("fees")!;
  const scrolled = vi.spyOn(target, "scrollIntoView").mockImplementation(() => {});
  scrollToArrivalTarget({ hash: "#fees" });
  expect(scrolled).toHaveBeenCalledOnce();
});

test("a hash with no target changes nothing", () => {
  document.body.innerHTML = `<h2 id="fees">Fees</h2>`;
  const scrolled = vi.spyOn(document.getElementById("fees")!, "scrollIntoView");
  scrollToArrivalTarget({ hash: "#missing" });
  expect(scrolled).not.toHaveBeenCalled();
});
