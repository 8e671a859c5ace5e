/** `VERSION` is package.json's version: what MCP's handshake names when the app names none. */
import { readFileSync } from "node:fs";
import { VERSION } from "elyra-assistant";
import { describe, expect, it } from "vitest";

describe("VERSION", () => {
  it("is the package's version", () => {
    const pkg = JSON.parse(
      readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
    ) as {
      version: string;
    };
    expect(VERSION).toBe(pkg.version);
  });
});
