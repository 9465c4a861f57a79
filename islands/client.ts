/// <reference types="vite/client" />
/**
 * The one script a page with islands loads. It reads the page's data block, loads the chunk of
 * each island the server rendered (only those), and hydrates each in place with its props.
 */
import { type ComponentType, createElement, type ReactNode, useEffect } from "react";
import { hydrateRoot } from "react-dom/client";
import { deserializeProps } from "../lib/serialize.ts";
import { resetBatchOnNavigation } from "./lib/batch.ts";
import { preloadLinksOnIntent } from "./lib/preload.ts";
import { reloadAfterChunkFailure } from "./lib/reload-guard.ts";
import { scrollToArrivalTarget } from "./lib/scroll.ts";

interface IslandInstance {
  id: string;
  name: string;
  props: Record<string, unknown>;
}

// Each island file becomes its own chunk; nothing here is loaded until a page asks for it.
const loaders = import.meta.glob<{ default: ComponentType<Record<string, unknown>> }>("./[A-Z]*.tsx");

/** Tells its island's hydration is done: effects run only once the tree is hydrated. */
function Hydrated({ children, onReady }: { children: ReactNode; onReady: () => void }) {
  useEffect(onReady, []);
  return children;
}

async function hydrateIslands() {
  const block = document.getElementById("__islands");
  if (!block?.textContent) return;
  const instances = deserializeProps<IslandInstance[]>(block.textContent);
  await Promise.all(instances.map(async ({ id, name, props }) => {
    const element = document.querySelector(`[data-island="${id}"]`);
    const load = loaders[`./${name}.tsx`];
    if (!element || !load) {
      console.warn(`Island ${name} (${id}) cannot be hydrated`);
      return;
    }
    let module;
    try {
      module = await load();
    } catch (error) {
      console.warn(`Island ${name} failed to load`, error);
      reloadAfterChunkFailure();
      return;
    }
    await new Promise<void>((ready) => {
      hydrateRoot(element, createElement(Hydrated, { onReady: ready, children: createElement(module.default, props) }));
    });
  }));
}

await hydrateIslands();
// A marker for tests and tools: every island on the page is interactive now.
document.documentElement.dataset.hydrated = "";
scrollToArrivalTarget();
preloadLinksOnIntent();
// Pages on the user layout drop the calls of the page being left (SPEC.md section 2).
if (document.querySelector("[data-layout=user]")) resetBatchOnNavigation();
