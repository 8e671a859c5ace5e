/**
 * A command that throws something hostile (an Error whose `message` getter
 * throws, or gives no string) is a failed tool step in words, never a
 * rejected call that fails the turn (issue 29, item 14).
 */
import { Schema } from "effect";
import { createApp, createCallPath, defineCommand } from "elyra-assistant";
import { describe, expect, it } from "vitest";
import { jsonTextOf } from "../../src/runtime/json.ts";

const throwing = (value: () => unknown) =>
  createCallPath(
    createApp({
      commands: [
        defineCommand({
          name: "things_show",
          description: "Show a thing.",
          can: "things.view",
          args: { id: Schema.Number },
          run: () => {
            throw value();
          },
        }),
      ],
      userAbilities: () => ["things.view"],
      assistant: { allow: ["things.view"] },
    }),
  );

const call = (path: ReturnType<typeof throwing>) =>
  path.call(
    { tool: "things_show", input: { id: 1 }, callId: "c1" },
    { user: {}, origin: { kind: "assistant" }, scope: "w" },
  );

describe("a command that throws something hostile", () => {
  it("an Error whose message getter throws: a failed step, in words", async () => {
    const path = throwing(() => {
      const error = new Error("hidden");
      Object.defineProperty(error, "message", {
        get: () => {
          throw new Error("no message for you");
        },
      });
      return error;
    });
    await expect(call(path)).resolves.toMatchObject({
      _tag: "Failed",
      lines: ["the command failed"],
    });
  });

  it("an Error whose message is not a string, or a plain object: a failed step", async () => {
    const odd = throwing(() => {
      const error = new Error("x");
      Object.defineProperty(error, "message", { value: { toString: () => "boom" } });
      return error;
    });
    await expect(call(odd)).resolves.toMatchObject({
      _tag: "Failed",
      lines: ["the command failed"],
    });
    await expect(call(throwing(() => ({ message: 42 })))).resolves.toMatchObject({
      _tag: "Failed",
    });
    await expect(call(throwing(() => "a plain string"))).resolves.toMatchObject({
      _tag: "Failed",
      lines: ["a plain string"],
    });
  });
});

describe("a result whose toJSON throws something hostile", () => {
  it("is told as not JSON, in words, rather than throwing", () => {
    const hostile = new Error("hidden");
    Object.defineProperty(hostile, "message", {
      get: () => {
        throw new Error("no message for you");
      },
    });
    const result = jsonTextOf({
      toJSON: () => {
        throw hostile;
      },
    });
    expect(result).toMatchObject({ _tag: "NotJson" });
  });
});
