// The prebuilt browser module, `elyra-assistant/ui/bundle.js`: the ui entry
// bundled by esbuild with all it imports into one minified ES module for
// browsers (ES2022), no import left in it. `npm run build:lib` writes it over
// tsc's dist/adapters/ui/bundle.js, with a source map into src/; the specs
// build it with the same options.
import { build } from "esbuild";

/** The module it bundles, from the repository's root. */
export const BUNDLE_ENTRY = "src/adapters/ui/bundle.ts";
/** Where the library build writes it, from the repository's root. */
export const BUNDLE_FILE = "dist/adapters/ui/bundle.js";

/**
 * Builds the module from `root` (the repository) into `outfile`; with
 * `write: false` nothing is written and the result's `outputFiles` hold it.
 */
export const buildBrowserBundle = (root, { outfile, write = true }) =>
  build({
    absWorkingDir: root,
    entryPoints: [BUNDLE_ENTRY],
    outfile,
    write,
    bundle: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    minify: true,
    define: { "process.env.NODE_ENV": '"production"' },
    sourcemap: "linked",
    sourcesContent: false,
    metafile: true,
    logLevel: "silent",
  });
