/**
 * The gzip JavaScript of the pages the bench cannot load without signing in, computed from the
 * build manifest: each page's islands, their chunks and what they import, as the server would
 * preload them. A diagnostic beside bench/js-weight.ts (which fetches public pages for real).
 *   NODE_ENV=production deno run -A bench/tools/island-weights.ts
 */
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { loadAssets } from "../../server/render/assets.ts";

const BUDGET = 80_000;
const assets = loadAssets("dist");
const REGISTER = ["NotificationQueue", "ColorModeToggle"];
const USER = ["NotificationQueue", "ColorModeToggle"];
const PAGES: Record<string, string[]> = {
  "/ (visitor)": ["NotificationQueue", "ColorModeToggle", "LoginForm"],
  "/register": ["NotificationQueue", "ColorModeToggle", "RegisterForm"],
  "/verify": [...REGISTER, "VerifyForm"],
  "/second-factor": [...REGISTER, "SecondFactorForm"],
  "/register-personal": [...REGISTER, "ProfileForm"],
  "/identity": [...REGISTER, "IdentityCheck"],
  "/account": [...USER, "Balances"],
  "/account/balances": [...USER, "Balances"],
  "/account/convert": [...USER, "ConvertForm", "Balances"],
  "/account/security": [...USER, "TotpSettings"],
  "/console/users": [...USER, "ConsoleUsers"],
  "/console/users (acting on behalf)": [...USER, "ConsoleUsers", "OnBehalfBanner"],
  "/console/users/{id}": [...USER, "ConsoleUserFees"],
  "/console/receipts": [...USER, "ConsoleReceipts"],
  "/console/pricingplan": [...USER, "ConsolePricingPlans", "ConsoleRates"],
};

for (const [page, islands] of Object.entries(PAGES)) {
  const bytes = assets.modulesFor(islands).reduce((n, href) => n + gzipSync(readFileSync(`dist${href}`), { level: 9 }).length, 0);
  console.log(`${page.padEnd(36)} ${(bytes / 1000).toFixed(1).padStart(5)} KB  ${bytes > BUDGET ? "over 80 KB" : "within"}`);
}
