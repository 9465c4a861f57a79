import type { MiddlewareHandler } from "hono";
import { NONCE, secureHeaders } from "hono/secure-headers";
import type { AppEnv } from "../env.ts";
import { ApiError } from "./api.ts";

/**
 * Security headers on every answer: a CSP whose scripts need this response's nonce, no framing,
 * no MIME sniffing, and a referrer policy that keeps paths (which can hold ids) on our own site.
 */
export function securityHeaders(options: { https: boolean }): MiddlewareHandler<AppEnv> {
  return secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      scriptSrc: [NONCE, "'strict-dynamic'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", "data:", "blob:"],
      fontSrc: ["'self'"],
      connectSrc: ["'self'"],
      frameSrc: ["'self'"],
      frameAncestors: ["'none'"],
      formAction: ["'self'"],
      baseUri: ["'none'"],
      objectSrc: ["'none'"],
      ...(options.https ? { upgradeInsecureRequests: [] } : {}),
    },
    xFrameOptions: "DENY",
    xContentTypeOptions: "nosniff",
    referrerPolicy: "strict-origin-when-cross-origin",
    strictTransportSecurity: options.https ? "max-age=31536000; includeSubDomains" : false,
    crossOriginEmbedderPolicy: false,
    crossOriginResourcePolicy: "same-origin",
    crossOriginOpenerPolicy: "same-origin",
    // Headers for browsers long gone (IE's download and XSS options, Flash's cross-domain policy)
    // are left out: each costs time on every answer and protects nobody today.
    originAgentCluster: false,
    xXssProtection: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xDnsPrefetchControl: false,
    permissionsPolicy: { camera: [], microphone: [], geolocation: [], payment: [] },
  });
}

/**
 * The script policy of a kept public page (server/render/page-cache.ts): its scripts are our
 * origin's built modules, with no nonce, so that the page is the same bytes for every visitor.
 * Nothing on such a page is anybody's input, which is what a nonce guards against; every page that
 * shows a person's data keeps the nonce (decision 058).
 */
export const PUBLIC_PAGE_SCRIPT_SRC = "script-src 'self'";

/** A CSP with its script policy replaced by a public page's. */
export function withPublicPageScripts(csp: string): string {
  return csp.replace(/script-src [^;]*/, PUBLIC_PAGE_SCRIPT_SRC);
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Refuses state-changing requests that another site made the browser send. Browsers state the
 * initiator in Sec-Fetch-Site and Origin; a request from our own pages carries our origin or none
 * (same-origin GET form posts are not used). Non-browser clients send neither and pass: they hold
 * no victim's cookies.
 */
export function sameOriginOnly(allowedOrigins: () => string[]): MiddlewareHandler<AppEnv> {
  return async function sameOrigin(c, next) {
    if (SAFE_METHODS.has(c.req.method)) return await next();
    const site = c.req.header("sec-fetch-site");
    const origin = c.req.header("origin");
    const own = new URL(c.req.url).origin;
    const crossSite = site !== undefined && site !== "same-origin" && site !== "none";
    const foreignOrigin = origin !== undefined && origin !== own && !allowedOrigins().includes(origin);
    if (crossSite || foreignOrigin) {
      throw new ApiError(403, "This request came from another site and was refused.");
    }
    await next();
  };
}

const SUMSUB_ORIGINS = "https://*.sumsub.com";

/**
 * The identity page under Sumsub loads Sumsub's WebSDK, which frames Sumsub's pages and uses the
 * camera for the selfie. Only that page, and only when Sumsub is the provider, gets those
 * allowances. Registered outside securityHeaders, so it amends what that set.
 */
export function identityProviderAllowances(enabled: boolean): MiddlewareHandler<AppEnv> {
  return async function sumsubAllowances(c, next) {
    await next();
    if (!enabled || c.req.path !== "/identity") return;
    const csp = c.res.headers.get("content-security-policy");
    if (csp) {
      c.res.headers.set(
        "content-security-policy",
        csp.replace("frame-src 'self'", `frame-src 'self' ${SUMSUB_ORIGINS}`)
          .replace("connect-src 'self'", `connect-src 'self' ${SUMSUB_ORIGINS}`)
          .replace("img-src 'self'", `img-src 'self' ${SUMSUB_ORIGINS}`)
          .replace("style-src 'self'", `style-src 'self' 'unsafe-inline' ${SUMSUB_ORIGINS}`),
      );
    }
    c.res.headers.set(
      "permissions-policy",
      `camera=(self "${SUMSUB_ORIGINS}"), microphone=(), geolocation=(), payment=()`,
    );
  };
}

/**
 * The console's frames of an email's HTML (routes/pages/console-alerts.tsx) and of a bulk email's
 * preview (routes/pages/console-bulkemails.tsx).
 */
const EMAIL_FRAME = /^\/console\/(emails\/\d+\/html|bulkemails\/\d+\/preview)$/;

/**
 * An email's HTML as the customer's mail program shows it, in the console's sandboxed frame: its
 * own inline styles and remote images (a mail's usual makeup) and nothing else, no script, and a
 * sandbox of its own even if opened outside the frame. Only that path; registered outside
 * securityHeaders, so it replaces what that set.
 */
export function emailFrameAllowances(): MiddlewareHandler<AppEnv> {
  return async function emailFrame(c, next) {
    await next();
    if (!EMAIL_FRAME.test(c.req.path) || c.res.status !== 200) return;
    c.res.headers.set(
      "content-security-policy",
      "default-src 'none'; style-src 'unsafe-inline'; img-src data: https:; font-src data: https:; " +
        "frame-ancestors 'self'; sandbox",
    );
  };
}
