/**
 * Loading an optional peer: a package that is not installed becomes one
 * sentence naming it; anything else fails as it failed.
 */
import { MissingPeerDependency } from "elyra-assistant";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { importPeer, isPeerMissing } from "../../src/adapters/peer.ts";
import { runs, timeoutFor } from "../properties/runs.ts";

describe("importPeer", () => {
  it("gives the module when it loads", async () => {
    const module = await importPeer("elyra-assistant/x", "effect", () => import("effect"));
    expect(typeof module.Schema).toBe("object");
  });

  it("turns the runtime's own 'cannot find package' into the sentence that names it", async () => {
    const error = await importPeer(
      "elyra-assistant/sqlite",
      "elyra-no-such-peer",
      () =>
        // @ts-expect-error: a package that is not installed, so it has no types either
        import("elyra-no-such-peer"),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingPeerDependency);
    expect((error as MissingPeerDependency).message).toBe(
      "elyra-assistant/sqlite needs the package elyra-no-such-peer, which is not installed: install it beside elyra-assistant (npm install elyra-no-such-peer).",
    );
    expect((error as MissingPeerDependency)._tag).toBe("MissingPeerDependency");
    expect((error as MissingPeerDependency).cause).toMatchObject({ code: "ERR_MODULE_NOT_FOUND" });
  });

  it("lets any other failure through as it was: a peer that throws, or a package of its own that is missing", async () => {
    const broken = new Error("bindings file not found");
    await expect(importPeer("e", "better-sqlite3", () => Promise.reject(broken))).rejects.toBe(
      broken,
    );
    const deeper = Object.assign(new Error("Cannot find package 'bindings' imported from x"), {
      code: "ERR_MODULE_NOT_FOUND",
    });
    await expect(importPeer("e", "better-sqlite3", () => Promise.reject(deeper))).rejects.toBe(
      deeper,
    );
  });
});

describe("isPeerMissing", () => {
  const peer = fc.stringMatching(/^(@[a-z0-9-]{1,8}\/)?[a-z0-9][a-z0-9.-]{0,12}$/);
  const wordings = [
    (p: string) => ({
      code: "ERR_MODULE_NOT_FOUND",
      message: `Cannot find package '${p}' imported from /a/b.js`,
    }),
    (p: string) => ({ code: "MODULE_NOT_FOUND", message: `Cannot find module '${p}'` }),
    (p: string) => ({
      code: "ERR_MODULE_NOT_FOUND",
      message: `Cannot find package '${p}' from '/a/b.js'`,
    }),
    (p: string) => ({ message: `Could not find package "${p}" in node_modules` }),
  ];

  it("is true for each runtime's wording of 'not installed' that names the peer, and false when it names another", {
    timeout: timeoutFor(),
  }, () => {
    fc.assert(
      fc.property(peer, peer, fc.constantFrom(...wordings), (asked, other, wording) => {
        expect(isPeerMissing(wording(asked), asked)).toBe(true);
        if (other !== asked && !`'${other}'`.includes(`'${asked}'`)) {
          expect(isPeerMissing(wording(other), asked)).toBe(false);
        }
      }),
      { numRuns: runs(1000) },
    );
  });

  it("is false for whatever is not an error naming the peer", { timeout: timeoutFor() }, () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(isPeerMissing(value, "better-sqlite3")).toBe(false);
      }),
      { numRuns: runs(1000) },
    );
  });
});
