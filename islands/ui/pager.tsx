/**
 * Previous / "Page 2 of 5" / Next under a list the server answers a page at a time. Shown only
 * when there is more than one page; `label` names what is paged for a screen reader's landmarks.
 */
import { MUTED } from "./table.tsx";

export function Pager({ label, page, pages, onPage }: {
  label: string;
  page: number;
  pages: number;
  onPage: (page: number) => void;
}) {
  if (pages <= 1) return null;
  return (
    <nav aria-label={label} className="flex items-center justify-between gap-3">
      <button type="button" className="btn-outline" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <p className={`text-sm ${MUTED}`}>Page {page} of {pages}</p>
      <button type="button" className="btn-outline" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
