/** `elyra-assistant/ui` bundled for the browser, minified, as an app would ship it (esbuild, in Node). */
import { build } from "esbuild";

export const buildUiBundle = () =>
  build({
    entryPoints: ["src/ui.ts"],
    bundle: true,
    platform: "browser",
    format: "esm",
    minify: true,
    write: false,
    metafile: true,
    logLevel: "silent",
  });
