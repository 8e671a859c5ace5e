/**
 * React, the optional peer `elyra-assistant/react` needs, loaded with a clear
 * sentence when missing (decision (w)). `importPeer` is reached only when
 * React failed to load: `peer.ts` brings effect's error classes, which a page
 * bundle then keeps in a chunk it never loads.
 */
import type * as ReactModule from "react";

const loaded = await import("react").catch(async (cause: unknown) => {
  const { importPeer } = await import("../peer.ts");
  return importPeer("elyra-assistant/react", "react", () => Promise.reject(cause));
});

// React is CommonJS: Node, Vite and webpack all give its exports as the default of the
// namespace; an ES module build (an alias, a CDN) may have only the named ones.
export const React: typeof ReactModule.default = loaded.default ?? loaded;
