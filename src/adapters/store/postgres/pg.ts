/** pg, the optional peer `elyra-assistant/postgres` needs, loaded with a clear sentence when missing. */
import { importPeer } from "../../peer.ts";

// The default export: pg is CommonJS, and its ES module wrapper (pg 8.15 and later) gives the
// same object as its default, so every pg 8 loads the same way.
export const pg = (await importPeer("elyra-assistant/postgres", "pg", () => import("pg"))).default;
