/**
 * On arrival the page shows the hash target when there is one. The browser already does so on
 * load, but islands can change the height above the target as they hydrate, so it is done again
 * afterwards. Without a hash the browser's own choice stands: the top on a new page, the old
 * position on back and forward.
 */
export function scrollToArrivalTarget(loc: Pick<Location, "hash"> = location, doc: Document = document): void {
  const id = loc.hash ? decodeURIComponent(loc.hash.slice(1)) : "";
  const target = id ? doc.getElementById(id) : null;
  if (target) target.scrollIntoView();
}
