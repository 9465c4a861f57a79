/**
 * The JavaScript of every page with islands as transferred, computed from the build: each page's
 * islands, their chunks and what they import, as the server would preload them, each counted as
 * the brotli file the build wrote beside it (scripts/build.ts), which is what the portal sends a
 * browser. A quick diagnostic beside bench/js-weight.ts, which fetches every page for real.
 *   NODE_ENV=production deno run -A bench/tools/island-weights.ts [--files]
 *
 * Two columns: the page as its user sees it, and as an administrator acting on behalf of a
 * customer sees it (every layout then adds the OnBehalfBanner island). --files lists each page's
 * files with their size as transferred.
 */
import { existsSync, statSync } from "node:fs";
import { loadAssets } from "../../server/render/assets.ts";
import { MAX_TRANSFERRED_JS_BYTES as BUDGET } from "../lib/page-scripts.ts";
const assets = loadAssets("dist");
const showFiles = Deno.args.includes("--files");

/** The islands of each layout (routes/layouts/), then each page's own. */
const DEFAULT = ["NotificationQueue", "ColorModeToggle"];
const REGISTER = ["NotificationQueue", "ColorModeToggle"];
const USER = ["NotificationQueue", "ColorModeToggle"];
const BLANK = ["NotificationQueue"];
const PAGES: Record<string, string[]> = {
  "/ (visitor)": [...DEFAULT, "LoginForm"],
  "/forgot": [...DEFAULT, "ForgotForm"],
  "/setup": [...BLANK, "SetupForm"],
  "/calculator": [...BLANK, "Calculator"],
  "/register": [...REGISTER, "RegisterForm"],
  "/verify": [...REGISTER, "VerifyForm"],
  "/second-factor": [...DEFAULT, "SecondFactorForm"],
  "/register-personal": [...REGISTER, "PersonalProfileForm"],
  "/register-business": [...REGISTER, "BusinessProfileForm"],
  "/identity": [...REGISTER, "IdentityCheck"],
  "/account": [...USER, "Balances", "PendingPayments"],
  "/account/balances": [...USER, "Balances"],
  "/account/convert": [...USER, "ConvertForm"],
  "/account/recipients": [...USER, "Recipients"],
  "/account/users": [...USER, "AccountUsers"],
  "/account/security": [...USER, "TotpSettings"],
  "/account/payment": [...USER, "PaymentForm"],
  "/account/pendingpayments": [...USER, "PendingPayments"],
  "/account/pendingpayments/{id}": [...USER, "PendingPayment"],
  "/console/users": [...USER, "ConsoleUsers"],
  "/console/users/{id}": [...USER, "ConsoleUserFees", "ConsoleReview"],
  "/console/receipts": [...USER, "ConsoleReceipts"],
  "/console/pricingplan": [...USER, "ConsolePricingPlans", "ConsoleRates"],
  "(any other page of a layout)": [...USER],
};

// The server sends file.br when it exists (a browser accepts brotli), else the file.
const transferredOf = (href: string) => statSync(existsSync(`dist${href}.br`) ? `dist${href}.br` : `dist${href}`).size;
const weigh = (islands: string[]) => assets.modulesFor(islands).reduce((n, href) => n + transferredOf(href), 0);
const kb = (bytes: number) => `${(bytes / 1000).toFixed(1).padStart(5)} KB`;

console.log(`${"Page".padEnd(30)} ${"brotli".padStart(8)} ${"on behalf".padStart(10)}`);
let over = 0;
for (const [page, islands] of Object.entries(PAGES)) {
  const own = weigh(islands);
  const onBehalf = weigh([...islands, "OnBehalfBanner"]);
  const verdict = Math.max(own, onBehalf) > BUDGET ? `over ${BUDGET / 1000} KB` : "within";
  if (verdict !== "within") over++;
  console.log(`${page.padEnd(30)} ${kb(own)} ${kb(onBehalf).padStart(10)}  ${verdict}`);
  if (showFiles) {
    for (const href of assets.modulesFor(islands)) {
      console.log(`    ${href.padEnd(44)} ${String(transferredOf(href)).padStart(6)}`);
    }
  }
}
if (over) Deno.exitCode = 1;
