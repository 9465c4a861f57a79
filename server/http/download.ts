import type { Context, MiddlewareHandler } from "hono";
import type { ApiFailure } from "../../lib/api-types.ts";
import type { AppEnv } from "../env.ts";
import { flash } from "../render/flash.ts";

/**
 * The page a download's link is on, to go back to when the download is refused; null when the
 * refusal must be answered as it is (consolePage).
 */
export type LinkingPage = (c: Context<AppEnv>) => string | null;

/**
 * The page of a console download's link, for an administrator: to anyone else (signed out, no
 * longer an administrator) a console call answers exactly as an address that does not exist
 * (decision 004), and a 303 to a console page would tell them that it does. The link carries no
 * `download` attribute, so that answer shows in the tab rather than being saved as the file.
 */
export const consolePage = (page: (c: Context<AppEnv>) => string): LinkingPage => (c) =>
  c.get("user")?.level === "Admin" ? page(c) : null;

/**
 * Whether the browser is following a link (a navigation) rather than a script or a client of the
 * API calling: browsers say so in Sec-Fetch-Mode; one too old to send it asks for a page (HTML).
 */
export function followedAsLink(c: Context): boolean {
  const mode = c.req.header("sec-fetch-mode");
  if (mode) return mode === "navigate";
  return (c.req.header("accept") ?? "").includes("text/html");
}

/**
 * A download call's refusal, when a person followed its link (decision 075): the browser would show
 * the JSON in the tab, or save it as the file. The person is sent back to the page the link is on
 * (or where the refusal says to go: '/' once signed out), loaded again for the session's account,
 * with the refusal as its notification, as an island's call tells it (islands/lib/api.ts). A
 * client of the API gets the JSON refusal as from any call.
 */
export function refusedDownloadBackTo(page: LinkingPage): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (c.res.status < 400 || !followedAsLink(c)) return;
    const failure = await c.res.clone().json().catch(() => null) as Partial<ApiFailure> | null;
    if (!failure?.error) return;
    const back = failure.redirect ?? page(c);
    if (back === null) return;
    const problems = Object.values(failure.fields ?? {});
    flash(c, {
      title: failure.error,
      ...(problems.length ? { description: problems.join(" ") } : {}),
      color: failure.code === "account_changed" ? "warning" : "error",
    });
    c.res = new Response(null, { status: 303, headers: { Location: back } });
  };
}
