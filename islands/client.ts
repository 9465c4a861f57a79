/**
 * The one script a page with islands loads. It reads the page's data block, loads the module of
 * each island the server rendered (only those: the server names each one's module, from the build
 * manifest, and has already asked the browser to preload it), and hydrates each in place with its
 * props.
 */
import { type ComponentType, createElement, type ReactNode, useEffect } from "react";
import { hydrateRoot } from "react-dom/client";
import { deserializeProps } from "../lib/serialize.ts";
import { closeMenuOnEscape } from "./lib/menu-escape.ts";
import ColorModeToggle from "./ColorModeToggle.tsx";
import type { EntryIsland } from "../lib/entry-islands.ts";
import NotificationQueue from "./NotificationQueue.tsx";
import { preloadLinksOnIntent } from "./lib/preload.ts";
import { reloadAfterChunkFailure } from "./lib/reload-guard.ts";
import { scrollToArrivalTarget } from "./lib/scroll.ts";
import { reloadWhenSignedInSince } from "./lib/signed-in-since.ts";

interface IslandInstance {
  id: string;
  name: string;
  props: Record<string, unknown>;
  /** The URL of the island's module (each island file is an entry of the build); none for the layouts'. */
  src: string;
}

type Island = ComponentType<Record<string, unknown>>;

/** The layouts' islands, which come with this entry (lib/entry-islands.ts). */
const IN_ENTRY: Record<EntryIsland, Island> = {
  NotificationQueue: NotificationQueue as Island,
  ColorModeToggle: ColorModeToggle as Island,
};

/** Tells its island's hydration is done: effects run only once the tree is hydrated. */
function Hydrated({ children, onReady }: { children: ReactNode; onReady: () => void }) {
  useEffect(onReady, []);
  return children;
}

/** Lets the browser handle input and paint before the next piece of work. */
function yieldToMain(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (scheduler?.yield) return scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}

async function hydrateIslands() {
  const block = document.getElementById("__islands");
  if (!block?.textContent) return;
  const instances = deserializeProps<IslandInstance[]>(block.textContent);
  await Promise.all(instances.map(async ({ id, name, props, src }) => {
    const element = document.querySelector(`[data-island="${id}"]`);
    let component = Object.hasOwn(IN_ENTRY, name) ? IN_ENTRY[name as EntryIsland] : undefined;
    // Only the portal's own built files: the page's CSP trusts what this script imports
    // ('strict-dynamic'), so a module named anywhere else is refused here.
    if (!element || (!component && !/^\/assets\/[\w.-]+\.js$/.test(src))) {
      console.warn(`Island ${name} (${id}) cannot be hydrated`);
      return;
    }
    try {
      // Not a literal: the bundler leaves it alone, and the browser loads what the server named.
      component ??= ((await import(/* @vite-ignore */ src)) as { default: Island }).default;
    } catch (error) {
      console.warn(`Island ${name} failed to load`, error);
      reloadAfterChunkFailure();
      return;
    }
    // Each island in a task of its own: the page stays responsive between them (a phone's main
    // thread is never held for all of them at once).
    await yieldToMain();
    await new Promise<void>((ready) => {
      hydrateRoot(element, createElement(Hydrated, { onReady: ready, children: createElement(component, props) }));
    });
  }));
}

// Before the islands: a visitor's page shown again after signing in is replaced at once.
reloadWhenSignedInSince();
closeMenuOnEscape();

// No top-level await: this module shares its chunk with what the islands import, and an island
// cannot finish loading while a module it depends on still waits (for that island).
void hydrateIslands().then(() => {
  // A marker for tests and tools: every island on the page is interactive now.
  document.documentElement.dataset.hydrated = "";
  scrollToArrivalTarget();
  preloadLinksOnIntent();
});
