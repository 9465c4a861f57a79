/**
 * A moment as the server writes it for a reader whose time zone it does not know (a page it
 * renders, an email): "5 Dec 2026, 09:05 UTC", the zone named, as the conversion receipt names
 * the browser's (islands/money/conversion-receipt.tsx) and as the payment and recipient pages say
 * UTC. Never Date.toUTCString's "Sat, 05 Dec 2026 09:05:00 GMT", worded like no other time we show.
 */
const IN_UTC = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  timeZone: "UTC",
  timeZoneName: "short",
});

export const momentInUtc = (at: Date): string => IN_UTC.format(at);
