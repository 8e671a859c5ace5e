import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { Host } from "elyra-assistant";
import type { ModelSource } from "elyra-assistant/anthropic";
import { assistantHttp, toNodeListener } from "elyra-assistant/http";
import type { Secrets } from "elyra-assistant/secrets";
import type { Member } from "./app.ts";

export interface ServeOptions {
  /** The page's token: the same in every instance behind one load balancer. */
  readonly token: string;
  /** Who is signed in, from your own session; undefined when nobody is (401). */
  readonly authenticate: (request: Request) => Member | undefined | Promise<Member | undefined>;
  /** The model's source, and where users' own keys are kept: the panel's settings. */
  readonly source?: ModelSource;
  readonly secrets?: Secrets;
  /** The prebuilt panel module; by default the installed package's. */
  readonly panelModule?: string;
}

/** Scripts, styles and requests from this origin only: no 'unsafe-inline' anywhere. */
export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export const serve = (host: Host, options: ServeOptions): Server => {
  const { token } = options;
  const assistant = toNodeListener(
    assistantHttp(host, {
      token,
      authenticate: options.authenticate,
      ...(options.source === undefined ? {} : { source: options.source }),
      ...(options.secrets === undefined ? {} : { secrets: options.secrets }),
    }),
  );
  const require = createRequire(import.meta.url);
  const files: Record<string, Buffer> = {
    // The prebuilt panel: one file, no import left in it, served as it is.
    "/assets/elyra-assistant.js": readFileSync(
      options.panelModule ?? require.resolve("elyra-assistant/ui/bundle.js"),
    ),
    // The page's own module, which gives the panel its store.
    "/assets/assistant.js": readFileSync(new URL("./public/assistant.js", import.meta.url)),
  };
  const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="elyra-token" content="${escapeHtml(token)}">
  <title>Notes</title>
  <script type="module" src="/assets/assistant.js"></script>
</head>
<body>
  <main><h1>Notes</h1></main>
  <elyra-assistant-panel></elyra-assistant-panel>
</body>
</html>
`;
  return createServer((req, res) => {
    if (req.url?.startsWith("/__assistant/")) return assistant(req, res);
    const headers = { "content-security-policy": CSP, "x-content-type-options": "nosniff" };
    const file = files[req.url ?? ""];
    if (file !== undefined) {
      res.writeHead(200, { ...headers, "content-type": "text/javascript; charset=utf-8" });
      return res.end(file);
    }
    if (req.url !== "/") return res.writeHead(404, headers).end();
    res.writeHead(200, { ...headers, "content-type": "text/html; charset=utf-8" });
    res.end(page);
  });
};
