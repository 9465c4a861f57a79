/**
 * Security emails (decision 057): the ones that carry something that signs the customer in, sets
 * a password or proves the mailbox (a reset link, a sign-in or verification code, an invitation
 * link). The customer receives the real message; the portal keeps (in `emails`, which every
 * administrator reads on /console/emails) a copy with each secret replaced by a note, and never
 * sends such an email again from the console: a copy with live links would let an administrator
 * take over an account unseen.
 */

/** The templates whose emails carry a secret. A new template with a link or code that signs in belongs here. */
export const SECURITY_TEMPLATES: ReadonlySet<string> = new Set([
  "password-reset",
  "second-factor-code",
  "email-validation",
  "sign-in-paused",
  "account-invitation",
  "administrator-invitation",
  "migration-welcome",
]);

export const isSecurityTemplate = (template: string) => SECURITY_TEMPLATES.has(template);

/** A secret inside a rendered email: a link that signs in (or sets a password), or a code. */
export interface EmailSecret {
  kind: "link" | "code";
  value: string;
}

export const LINK_REMOVED = "[link removed: it signs the customer in]";
export const CODE_REMOVED = "[code removed]";
/** What is kept when a security email's secrets are not known, or one could not be taken out. */
export const CONTENT_NOT_KEPT =
  "[The content of this security email is not kept: it carried a link or code that signs in.]";

/** How React (and so react-email) writes a text or an attribute value in HTML. */
const htmlEscaped = (s: string) =>
  s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;")
    .replaceAll("'", "&#x27;");

/**
 * The copy kept of an email: for a security template, its HTML and text with every secret
 * replaced (a link's href becomes "#", so the kept HTML links nowhere). When a security template
 * names no secret, or a secret is still there afterwards (written some other way), nothing of the
 * body is kept: a missing redaction must fail closed.
 */
export function keptCopy(
  template: string,
  content: { html: string; text: string },
  secrets: readonly EmailSecret[] = [],
): { html: string; text: string } {
  if (!isSecurityTemplate(template)) return content;
  const known = secrets.filter((s) => s.value.length > 0);
  if (known.length === 0) return { html: `<p>${CONTENT_NOT_KEPT}</p>`, text: CONTENT_NOT_KEPT };
  let { html, text } = content;
  // Longest first, so that a code that is part of a link does not break the link's replacement.
  for (const secret of [...known].sort((a, b) => b.value.length - a.value.length)) {
    const note = secret.kind === "link" ? LINK_REMOVED : CODE_REMOVED;
    for (const form of new Set([secret.value, htmlEscaped(secret.value)])) {
      html = html.replaceAll(`href="${form}"`, 'href="#"').replaceAll(form, htmlEscaped(note));
    }
    text = text.replaceAll(secret.value, note);
  }
  const leaked = known.some((s) =>
    html.includes(s.value) || html.includes(htmlEscaped(s.value)) || text.includes(s.value) ||
    html.includes(encodeURI(s.value))
  );
  return leaked ? { html: `<p>${CONTENT_NOT_KEPT}</p>`, text: CONTENT_NOT_KEPT } : { html, text };
}

/** A link that carries a token, as written in a text part or an href. */
const TOKEN_LINK = /https?:\/\/[^\s"'<>]*token=[^\s"'<>]*/g;
/** A standalone 6-digit code (what the sign-in and verification codes are). */
const SIX_DIGITS = /(?<![\d#])\d{6}(?!\d)/g;

/**
 * What the console shows of a kept email: for a security template, its links with a token and its
 * 6-digit codes replaced too, for emails kept before redaction at store time (and in case a
 * template ever names its secrets wrong). Other emails are shown as kept.
 */
export function shownCopy(template: string, kept: { html: string; text: string }): { html: string; text: string } {
  if (!isSecurityTemplate(template)) return { html: kept.html, text: kept.text };
  const note = htmlEscaped(LINK_REMOVED);
  const html = kept.html.replace(/href="https?:\/\/[^"]*token=[^"]*"/g, 'href="#"').replace(TOKEN_LINK, note)
    .replace(SIX_DIGITS, htmlEscaped(CODE_REMOVED));
  const text = kept.text.replace(TOKEN_LINK, LINK_REMOVED).replace(SIX_DIGITS, CODE_REMOVED);
  return { html, text };
}
