/**
 * `npm run proxy`: the example CRM with its model behind a local backend
 * proxy, as a deployment would run it. The browser and the CRM's host never
 * hold the API key: the host's SDK talks to the proxy with a bearer token,
 * and the proxy adds the server's key, checks the model, the token cap, the
 * rate limit and the tools, and reports usage.
 *
 * With `ANTHROPIC_API_KEY` the proxy forwards to Claude. Without it, the
 * proxy forwards to an offline stand-in of the Messages API on loopback, so
 * the whole path can be watched working without a key.
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeListener } from "elyra-assistant/http";
import { createProxy } from "elyra-assistant/proxy";
import { says, standInMessagesApi } from "elyra-assistant/testing";
import { OFFLINE_PROXY_NOTICE } from "./modelSource.ts";
import { startCrm } from "./server.ts";
import { stopWhenAsked } from "./stopping.ts";

const key = process.env.ANTHROPIC_API_KEY;
const model = process.env.CRM_MODEL ?? "claude-sonnet-5-5";
const proxyPort = Number(process.env.PROXY_PORT ?? 8787);
const crmPort = process.env.PORT === undefined ? 3000 : Number(process.env.PORT);

// The offline upstream: every request answered with one streamed sentence.
const offline =
  key === undefined || key === ""
    ? await standInMessagesApi(() =>
        says(
          "This answer came through the local proxy from an offline stand-in of the Messages API. Set ANTHROPIC_API_KEY and run npm run proxy again to reach Claude.",
          { paceMs: 40 },
        ),
      )
    : undefined;

// The one token the CRM's host presents; a real deployment reads each user's session instead.
const token = randomBytes(24).toString("base64url");
const handle = createProxy({
  apiKey: key || "offline",
  ...(offline === undefined ? {} : { upstream: offline.url }),
  authenticate: (request) =>
    request.headers.get("authorization") === `Bearer ${token}` ? { id: "crm-host" } : undefined,
  models: [model],
  maxTokens: 8192,
  rateLimit: { calls: 60, perSeconds: 60 },
  onUsage: ({ model: used, usage }) =>
    console.log(`proxy: ${used} used ${usage.inputTokens} in, ${usage.outputTokens} out`),
});
const proxy = createServer(toNodeListener(handle));
await new Promise<void>((resolve) => proxy.listen(proxyPort, "127.0.0.1", resolve));
const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

const crm = await startCrm({
  port: crmPort,
  ...(process.env.CRM_DATA_DIR ? { dataDir: process.env.CRM_DATA_DIR } : {}),
  ...(offline === undefined ? {} : { notice: OFFLINE_PROXY_NOTICE }),
  // The host knows only the proxy: no key in its environment.
  env: { ELYRA_PROXY_URL: proxyUrl, ELYRA_PROXY_TOKEN: token },
});
console.log(`Elyra CRM: ${crm.url}`);
console.log(
  `Model: ${offline === undefined ? crm.model : `an offline stand-in of the Messages API, through the proxy at ${proxyUrl}`}`,
);
console.log(
  `Proxy: ${proxyUrl}/v1/messages → ${offline === undefined ? "Claude" : `an offline stand-in at ${offline.url}`}`,
);

stopWhenAsked(
  () =>
    Promise.all([crm.close(), new Promise((resolve) => proxy.close(resolve)), offline?.close()]),
  "Elyra CRM and its proxy stopped.",
);
