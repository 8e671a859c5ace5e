/** `@modelcontextprotocol/sdk`, the optional peer `elyra-assistant/mcp` needs, loaded with a clear sentence when missing. */
import { importPeer } from "../peer.ts";

const ENTRY = "elyra-assistant/mcp";
const PEER = "@modelcontextprotocol/sdk";

export const [serverSdk, typesSdk, streamableHttpSdk, stdioSdk] = await Promise.all([
  importPeer(ENTRY, PEER, () => import("@modelcontextprotocol/sdk/server/index.js")),
  importPeer(ENTRY, PEER, () => import("@modelcontextprotocol/sdk/types.js")),
  importPeer(
    ENTRY,
    PEER,
    () => import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
  ),
  importPeer(ENTRY, PEER, () => import("@modelcontextprotocol/sdk/server/stdio.js")),
]);
