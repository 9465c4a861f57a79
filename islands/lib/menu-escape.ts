/**
 * Escape closes the phone's menu (the <details data-menu> of routes/layouts/User.tsx, which opens
 * without a script) while the keyboard is in it, and leaves the keyboard on its "Menu" line: what
 * a disclosure does (WAI-ARIA Authoring Practices), and what a keyboard user tries first.
 */
export function closeMenuOnEscape(): void {
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || event.defaultPrevented) return;
    const menu = (event.target as Element | null)?.closest?.("details[data-menu][open]");
    if (!(menu instanceof HTMLDetailsElement)) return;
    event.preventDefault();
    menu.open = false;
    menu.querySelector("summary")?.focus();
  });
}
