/**
 * `npm install` on the Node the README names prints no `EBADENGINE` warning:
 * every package the lock file installs accepts this Node. fastify's
 * light-my-request 6.8 wants cookie 2, which needs Node 22, so package.json
 * pins light-my-request to 6.6 (cookie 1) under `overrides`.
 */
import { readFileSync } from "node:fs";
import semver from "semver";
import { describe, expect, it } from "vitest";

interface Locked {
  readonly version?: string;
  /** An object of ranges, or (in a few old packages) an array of strings npm ignores. */
  readonly engines?: { readonly node?: string } | ReadonlyArray<string>;
}

const lock = JSON.parse(
  readFileSync(new URL("../../package-lock.json", import.meta.url), "utf8"),
) as { readonly packages: Readonly<Record<string, Locked>> };

describe("the lock file on this Node", () => {
  it("holds no package whose engines refuse it (npm's EBADENGINE)", () => {
    const refused = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const engines = entry.engines;
      const node =
        engines === undefined || Array.isArray(engines)
          ? undefined
          : (engines as { readonly node?: string }).node;
      return node === undefined ||
        semver.satisfies(process.version, node, { includePrerelease: true })
        ? []
        : [`${path.replace(/^.*node_modules\//, "")}@${entry.version} needs node ${node}`];
    });
    expect(refused).toEqual([]);
  });
});
