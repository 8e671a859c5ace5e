/** The library's own errors for misuse and broken invariants: tagged, with a message that says what is wrong. */
import { StoreContractBroken } from "elyra-assistant/log";
import { describe, expect, it } from "vitest";
import { InvariantBroken } from "../../src/runtime/errors.ts";

describe("errors", () => {
  it("StoreContractBroken names the port and what it broke", () => {
    const error = new StoreContractBroken({
      port: "EventStore",
      reason: "append resolved with none",
    });
    expect(error).toBeInstanceOf(Error);
    expect(error._tag).toBe("StoreContractBroken");
    expect(error.message).toBe("EventStore: append resolved with none");
  });

  it("InvariantBroken names where, and says it is a bug of the library", () => {
    const error = new InvariantBroken({
      where: "sqliteStore",
      reason: "a LogEvent member has no literal _tag",
    });
    expect(error).toBeInstanceOf(Error);
    expect(error._tag).toBe("InvariantBroken");
    expect(error.message).toBe(
      "sqliteStore: a LogEvent member has no literal _tag (a bug in elyra-assistant)",
    );
  });
});
