/** ioredis, the optional peer `elyra-assistant/redis` needs, loaded with a clear sentence when missing. */
import { importPeer } from "../../peer.ts";

export const ioredis = await importPeer(
  "elyra-assistant/redis",
  "ioredis",
  () => import("ioredis"),
);
