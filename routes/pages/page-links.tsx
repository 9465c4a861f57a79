/**
 * Newer / "Page 2 of 5" / Older under a console list the server renders a page at a time from the
 * URL's `page`. A page past the last (a stale bookmark, a typed URL) says so and links to the last
 * page, where the list ends, instead of an empty table with a link to the page before it.
 */
export function PageLinks({ page, pages, link, label = "Pages", linkClass = "underline" }: {
  page: number;
  /** How many pages the list has: at least 1, even when it is empty. */
  pages: number;
  link: (page: number) => string;
  label?: string;
  linkClass?: string;
}) {
  if (page > pages) {
    return (
      <nav aria-label={label} className="flex items-center gap-4 text-sm">
        <p role="status">
          {`There is no page ${page}: the list has ${pages === 1 ? "1 page" : `${pages} pages`}. `}
          <a className={linkClass} href={link(pages)}>{pages === 1 ? "Go to the first page" : "Go to the last page"}</a>
        </p>
      </nav>
    );
  }
  if (pages <= 1) return null;
  return (
    <nav aria-label={label} className="flex items-center gap-4 text-sm">
      {page > 1 && <a className={linkClass} href={link(page - 1)}>Newer</a>}
      <span>{`Page ${page} of ${pages}`}</span>
      {page < pages && <a className={linkClass} href={link(page + 1)}>Older</a>}
    </nav>
  );
}
