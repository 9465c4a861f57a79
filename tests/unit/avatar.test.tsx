// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { renderToString } from "react-dom/server";
import { afterEach, describe, expect, test } from "vitest";
import Avatar, { AVATAR_SIZE_CLASSES } from "../../islands/Avatar.tsx";
import { initials } from "../../islands/lib/initials.ts";
import { AVATAR_SIZES, type AvatarSize } from "../../lib/constants.ts";

// A real 1×1 PNG: happy-dom decodes data URLs, so this one loads with a natural width of 1.
const PNG =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
// happy-dom does not fetch http images: this one ends "complete" with no picture, like a broken one.
const BROKEN = "https://img.example.test/missing.png";

afterEach(() => cleanup());

describe("initials", () => {
  test.each([
    ["Ada Lovelace", "AL"],
    ["ada", "A"],
    ["  ", ""],
    ["", ""],
    ["ada king lovelace", "AK"],
    ["  grace   hopper  ", "GH"],
    ["Émile Zola", "ÉZ"],
    ["E\u0301mile zola", "E\u0301Z"], // decomposed É stays whole
    ["łukasz żak", "ŁŻ"],
    ["山田 太郎", "山太"],
    ["\u{1D400}lpha beta", "\u{1D400}B"], // an astral letter is not split in half
    ["“Ada” Lovelace", "AL"],
    ["Smith & Sons", "SS"],
  ])("%j → %j", (alt, expected) => {
    expect(initials(alt)).toBe(expected);
  });
});

describe("Avatar", () => {
  test("shows the image while it loads", () => {
    render(<Avatar src={PNG} alt="Ada Lovelace" />);
    const img = screen.getByRole("img", { name: "Ada Lovelace" });
    expect(img.tagName).toBe("IMG");
    expect(img.getAttribute("src")).toBe(PNG);
  });

  test("a broken image gives way to the initials of its alt text", () => {
    render(<Avatar src={PNG} alt="Ada Lovelace" />);
    fireEvent.error(screen.getByRole("img", { name: "Ada Lovelace" }));
    const fallback = screen.getByRole("img", { name: "Ada Lovelace" });
    expect(fallback.tagName).toBe("SPAN");
    expect(fallback.textContent).toBe("AL");
    expect(document.querySelector("img")).toBeNull();
  });

  test("an image that failed before hydration is noticed on mount", () => {
    const html = renderToString(<Avatar src={BROKEN} alt="Grace Hopper" size="lg" />);
    expect(html).toContain("<img");
    const container = document.createElement("div");
    container.innerHTML = html;
    document.body.append(container);
    render(<Avatar src={BROKEN} alt="Grace Hopper" size="lg" />, { container, hydrate: true });
    const fallback = screen.getByRole("img", { name: "Grace Hopper" });
    expect(fallback.tagName).toBe("SPAN");
    expect(fallback.textContent).toBe("GH");
  });

  test("without an image it shows the initials at once", () => {
    const html = renderToString(<Avatar alt="Émile Zola" />);
    expect(html).not.toContain("<img");
    expect(html).toContain("ÉZ");
    render(<Avatar src={null} alt="Émile Zola" />);
    expect(screen.getByRole("img", { name: "Émile Zola" }).textContent).toBe("ÉZ");
  });

  test("an empty alt text makes it decorative", () => {
    const { container } = render(<Avatar alt="" />);
    expect(screen.queryByRole("img")).toBeNull();
    expect(container.firstElementChild?.getAttribute("aria-hidden")).toBe("true");
  });

  test("md (32 px) by default", () => {
    const { container } = render(<Avatar alt="Ada" />);
    const el = container.firstElementChild as HTMLElement;
    expect(el.dataset.size).toBe("md");
    expect(el.classList.contains("size-8")).toBe(true);
  });

  test.each(Object.entries(AVATAR_SIZES) as [AvatarSize, number][])(
    "size %s is %i px: its Tailwind size class is that many px",
    (size, px) => {
      // Tailwind's size-N is N × 0.25 rem = N × 4 px.
      expect(AVATAR_SIZE_CLASSES[size].box).toBe(`size-${px / 4}`);
      const { container } = render(<Avatar src={PNG} alt="Ada Lovelace" size={size} />);
      const el = container.firstElementChild as HTMLElement;
      expect(el.dataset.size).toBe(size);
      expect(el.classList.contains(`size-${px / 4}`)).toBe(true);
      const img = el.querySelector("img")!;
      expect(img.getAttribute("width")).toBe(String(px));
      expect(img.getAttribute("height")).toBe(String(px));
    },
  );

  test("sizes are all distinct and cover 3xs to 3xl", () => {
    expect(Object.keys(AVATAR_SIZE_CLASSES).sort()).toEqual(Object.keys(AVATAR_SIZES).sort());
    const boxes = Object.values(AVATAR_SIZE_CLASSES).map((c) => c.box);
    expect(new Set(boxes).size).toBe(boxes.length);
  });
});
