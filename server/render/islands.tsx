import { type ComponentType, createContext, useContext } from "react";

/** One island instance rendered on a page: which island, its element id, and its props. */
export interface IslandInstance {
  id: string;
  name: string;
  props: unknown;
}

/** Collects the islands a page renders, so the document ships exactly their chunks and props. */
export class IslandCollector {
  readonly instances: IslandInstance[] = [];
  add(name: string, props: unknown): string {
    const id = `i${this.instances.length}`;
    this.instances.push({ id, name, props });
    return id;
  }
  get names(): Set<string> {
    return new Set(this.instances.map((i) => i.name));
  }
}

export const IslandContext = createContext<IslandCollector | null>(null);

/**
 * Makes a server-side stand-in for an island component. It renders the component to HTML as any
 * other, inside a marker element that the client entry hydrates with the same props. The name is
 * the island's file name in islands/ (islands/Avatar.tsx is "Avatar"), which is how the client
 * finds its chunk.
 */
export function island<P extends object>(name: string, Component: ComponentType<P>): ComponentType<P> {
  function Island(props: P) {
    const collector = useContext(IslandContext);
    if (!collector) throw new Error(`Island ${name} rendered outside a page render`);
    const id = collector.add(name, props);
    return (
      <div data-island={id} className="contents">
        <Component {...props} />
      </div>
    );
  }
  Island.displayName = `Island(${name})`;
  return Island;
}
