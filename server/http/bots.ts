/**
 * Search-engine crawlers and social-preview fetchers, recognised by user agent. An error they meet
 * is logged and answered with a plain status, not the error page, so that no error page ends up in
 * an index or a link preview.
 */
const BOT_PATTERN = new RegExp(
  [
    "bot\\b",
    "crawler",
    "spider",
    "crawling",
    "slurp",
    "bingpreview",
    "mediapartners-google",
    "facebookexternalhit",
    "facebookcatalog",
    "embedly",
    "quora link preview",
    "outbrain",
    "pinterest",
    "vkshare",
    "w3c_validator",
    "whatsapp",
    "telegrambot",
    "discordbot",
    "twitterbot",
    "linkedinbot",
    "slackbot",
    "skypeuripreview",
    "redditbot",
    "applebot",
    "yandex",
    "baiduspider",
    "duckduckbot",
    "petalbot",
    "semrushbot",
    "ahrefsbot",
    "ia_archiver",
    "headlesschrome/.*lighthouse",
  ].join("|"),
  "i",
);

export function isBot(userAgent: string | undefined | null): boolean {
  return !!userAgent && BOT_PATTERN.test(userAgent);
}
