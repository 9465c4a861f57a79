/**
 * Where a visitor came from, as the address they arrived with says it (decision 051): the campaign
 * (utm_*) and a referral code. A visitor who lands on the home page or the calculator and then
 * clicks "Open an account" keeps them: the site's links to the registration carry them on, so that
 * the sign-up is attributed to the campaign or partner that brought them.
 */
export const UTM_PARAMS = ["utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"] as const;
export const ATTRIBUTION_PARAMS = [...UTM_PARAMS, "ref", "referral_code"] as const;

/** `href` with the attribution parameters of `currentPath` (a path with its query) added. */
export function withAttribution(href: string, currentPath: string): string {
  const at = currentPath.indexOf("?");
  if (at < 0) return href;
  const from = new URLSearchParams(currentPath.slice(at + 1));
  const kept = new URLSearchParams();
  for (const name of ATTRIBUTION_PARAMS) {
    const value = from.get(name);
    if (value) kept.set(name, value.slice(0, 500));
  }
  const query = kept.toString();
  return query ? `${href}${href.includes("?") ? "&" : "?"}${query}` : href;
}

/**
 * The address the visitor came from (`referrer`: the browser's `document.referrer`), when it is
 * another site's, cut to 500 characters: a link within the portal says nothing of where they came
 * from. Read by the registration form in the browser, so that /register is the same page for every
 * visitor and can be kept (decision 069).
 */
export function referrerFromElsewhere(referrer: string, here: string): string | undefined {
  if (!referrer) return undefined;
  try {
    return new URL(referrer, here).origin === new URL(here).origin ? undefined : referrer.slice(0, 500);
  } catch {
    return undefined;
  }
}
