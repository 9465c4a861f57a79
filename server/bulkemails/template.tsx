import { Link } from "@react-email/link";
import { Text } from "@react-email/text";
import { render } from "@react-email/render";
import { MERGE_FIELDS, type MergeField } from "../../lib/contracts/bulkemails.ts";
import { Layout, type RenderedEmail, styles } from "../mail/templates/layout.tsx";

/**
 * A bulk email (decision 050): the administrator's subject and body in the portal's email frame,
 * with an unsubscribe link at the foot. The body is text, not markup: blank lines part paragraphs,
 * single line breaks are kept. Merge fields stay written {{name}} in what this renders, and are
 * filled per recipient by `personalise`: React renders the template once per send, not once per
 * mail (at 10,000 mails, rendering each would be most of the send's time).
 */
export function bulkEmailTemplate({ subject, body }: { subject: string; body: string }): RenderedEmail {
  const paragraphs = body.split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean);
  const element = (
    <Layout
      preview={paragraphs[0]?.slice(0, 120) ?? subject}
      heading={subject}
      reason="you are a Portal customer who receives our news"
    >
      {paragraphs.map((paragraph, i) => (
        <Text key={i} style={styles.text}>
          {paragraph.split("\n").flatMap((line, j) => j === 0 ? [line] : [<br key={j} />, line])}
        </Text>
      ))}
      <Text style={styles.small}>
        To receive no more of our news, <Link href={UNSUBSCRIBE} style={styles.link}>unsubscribe</Link>{" "}
        (our emails about your account and your payments still reach you).
      </Text>
    </Layout>
  );
  return { subject, element };
}

/** Where the unsubscribe link goes in the rendered template, filled per recipient. */
const UNSUBSCRIBE = "{{unsubscribe_url}}";

export interface RenderedBulkEmail {
  subject: string;
  html: string;
  text: string;
}

/**
 * The plain text keeps headings as written: html-to-text upper-cases them by default, which turned
 * the subject's "{{first_name}}" into "{{FIRST_NAME}}", a field `personalise` then did not know.
 */
const HEADINGS_AS_WRITTEN = ["h1", "h2", "h3", "h4", "h5", "h6"].map((selector) => ({
  selector,
  options: { uppercase: false },
}));

/** The template rendered once, merge fields still in place. */
export async function renderBulkEmail(email: { subject: string; body: string }): Promise<RenderedBulkEmail> {
  const { subject, element } = bulkEmailTemplate(email);
  const [html, text] = await Promise.all([
    render(element),
    render(element, { plainText: true, htmlToTextOptions: { selectors: HEADINGS_AS_WRITTEN } }),
  ]);
  return { subject, html, text };
}

export type MergeValues = Record<MergeField, string> & { unsubscribe_url: string };

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" };
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);

/**
 * Fills the merge fields with one recipient's values: escaped in the HTML (a name with "<" in it is
 * text, not markup), as they are in the subject and the text part. A field the contract did not
 * know is left as written (the contract refuses them before they are stored).
 */
export function personalise(rendered: RenderedBulkEmail, values: MergeValues): RenderedBulkEmail {
  const fill = (template: string, escape: (v: string) => string) =>
    template.replace(
      /\{\{\s*([a-z_]+)\s*\}\}/g,
      (whole, name: string) => name in values ? escape(values[name as keyof MergeValues]) : whole,
    );
  // A subject is one line: a value's line breaks (none expected) would start mail headers.
  const oneLine = (v: string) => v.replace(/[\r\n]+/g, " ");
  return {
    subject: fill(rendered.subject, oneLine),
    html: fill(rendered.html, escapeHtml),
    text: fill(rendered.text, (v) => v),
  };
}

export { MERGE_FIELDS };
