import type { BuildResult } from "esbuild";

/** The module it bundles, from the repository's root. */
export declare const BUNDLE_ENTRY: string;
/** Where the library build writes it, from the repository's root. */
export declare const BUNDLE_FILE: string;
/** Builds the module from `root` into `outfile`; `write: false` keeps it in `outputFiles`. */
export declare const buildBrowserBundle: (
  root: string,
  options: { readonly outfile: string; readonly write?: boolean },
) => Promise<
  BuildResult<{ metafile: true; write: boolean }> & {
    metafile: NonNullable<BuildResult["metafile"]>;
  }
>;
