/** `@anthropic-ai/sdk`, the optional peer `elyra-assistant/anthropic` needs, loaded with a clear sentence when missing. */
import { importPeer } from "../peer.ts";

const ENTRY = "elyra-assistant/anthropic";
const PEER = "@anthropic-ai/sdk";

export const [sdk, streaming] = await Promise.all([
  importPeer(ENTRY, PEER, () => import("@anthropic-ai/sdk")),
  importPeer(ENTRY, PEER, () => import("@anthropic-ai/sdk/core/streaming")),
]);
