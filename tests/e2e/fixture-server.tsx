/**
 * The real portal plus a few fixture pages that end-to-end tests need and no production screen
 * offers yet (a broken avatar image, pages that force a colour mode, a notification queued across
 * a redirect). Started by tests/helpers/server.ts as its own process, on a fresh database.
 */
import { openMigratedDatabase } from "../../db/client.ts";
import { Avatar } from "../../routes/islands.ts";
import { ComingSoon } from "../../routes/layouts/parts.tsx";
import { registerPages } from "../../routes/pages.tsx";
import { createApp, createBackgroundWork, createServices } from "../../app.ts";
import { loadConfig } from "../../server/config.ts";
import { flash } from "../../server/render/flash.ts";
import { loadAssets } from "../../server/render/assets.ts";
import { seedMoney } from "../../server/money/store.ts";

const config = loadConfig();
const db = await openMigratedDatabase({ url: config.databaseUrl });
await seedMoney(db);
const services = await createServices(db, config);
const app = createApp({ db, config, assets: loadAssets(config.distDir), services });
// As main.ts: the emails of notifications go out after their commit.
services.emailOutbox.start();
// As main.ts: the background jobs run (a rate change's rate alert check, decision 038); no schedules.
await createBackgroundWork(db, config, services).runner.start();

registerPages(app, [
  {
    path: "/__fixtures/avatar",
    title: "Avatar fixture",
    render: () => (
      <section>
        <Avatar src="/__fixtures/missing-picture.png" alt="Grace Brewster Hopper" size="xl" />
      </section>
    ),
  },
  {
    path: "/__fixtures/dark",
    title: "Forced dark",
    colorMode: "dark",
    render: () => <ComingSoon title="Forced dark" what="A page that forces dark." />,
  },
  {
    path: "/__fixtures/light",
    title: "Forced light",
    colorMode: "light",
    render: () => <ComingSoon title="Forced light" what="A page that forces light." />,
  },
]);
app.get("/__fixtures/flash", (c) => {
  flash(c, { title: "Saved across a redirect", color: "success" });
  return c.redirect("/", 302);
});

Deno.serve({ port: config.port, hostname: "127.0.0.1", onListen: () => console.log("ready") }, app.fetch);
