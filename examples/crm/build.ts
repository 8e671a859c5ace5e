/**
 * `npm run build`: the example CRM's browser app as it would ship, minified
 * with its source map, in examples/crm/dist/. CI scans it for keys
 * (`elyra-assistant scan-keys examples/crm/dist`): the browser never holds one.
 */
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = fileURLToPath(new URL(".", import.meta.url));
const outdir = `${here}dist`;
rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: [`${here}client.ts`],
  outdir,
  bundle: true,
  minify: true,
  sourcemap: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  legalComments: "none",
  logLevel: "warning",
  metafile: true,
});
for (const [file, { bytes }] of Object.entries(result.metafile.outputs))
  console.log(`${file}  ${(bytes / 1024).toFixed(1)} KB`);
