import { Fragment } from "react";

/**
 * Bank details as written ("GB29 NWBK 6016 1331 9268 19", "60-16-13 · 31926819"), which a narrow
 * box wraps between groups only, never inside one: a sort code split as "60-16 / -13" or an IBAN
 * group split over two lines reads as another number.
 */
export function Grouped({ text }: { text: string }) {
  return (
    <>
      {text.split(" ").map((group, i) => (
        <Fragment key={i}>
          {i ? " " : ""}
          <span className="whitespace-nowrap">{group}</span>
        </Fragment>
      ))}
    </>
  );
}
