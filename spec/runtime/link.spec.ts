import { Schema } from "effect";
import { createApp, createCallPath, defineCommand } from "elyra-assistant";
import { describe, expect, it } from "vitest";
import { isAppPath, percentEncode } from "../../src/runtime/commands/link.ts";

const linkOf = async (
  args: Schema.Struct.Fields,
  link: string,
  input: unknown,
  result: unknown,
) => {
  const command = defineCommand({
    name: "things_show",
    description: "Show a thing.",
    can: "things.view",
    link,
    args: args as { value: typeof Schema.Unknown },
    result: Schema.Unknown,
    run: () => result,
  });
  const app = createApp({
    commands: [command],
    userAbilities: () => ["*"],
    assistant: { allow: ["*"] },
  });
  const outcome = await createCallPath(app).call(
    { tool: "things_show", input },
    { user: {}, origin: { kind: "assistant" }, scope: "w" },
  );
  expect(outcome._tag).toBe("Succeeded");
  return outcome._tag === "Succeeded" ? outcome.link : "not succeeded";
};

describe("links on success", () => {
  it("fills from an argument", async () => {
    expect(await linkOf({ value: Schema.Number }, "/things/{value}", { value: 42 }, null)).toBe(
      "/things/42",
    );
  });

  it("fills from a field of the result", async () => {
    expect(
      await linkOf(
        { value: Schema.Unknown },
        "/things/{result.id}/edit",
        { value: 1 },
        { id: "a b" },
      ),
    ).toBe("/things/a%20b/edit");
  });

  it("percent-encodes all but A-Z a-z 0-9 - . _ ~", async () => {
    expect(
      await linkOf(
        { value: Schema.String },
        "/t/{value}",
        { value: "../?#&=/!'()*~._-Zz9é😀" },
        null,
      ),
    ).toBe("/t/..%2F%3F%23%26%3D%2F%21%27%28%29%2A~._-Zz9%C3%A9%F0%9F%98%80");
  });

  it.each([
    ["a missing value", {}, null],
    ["an empty string", { value: "" }, null],
    ["an object", { value: { id: 1 } }, null],
    ["an array", { value: [1] }, null],
    ["null", { value: null }, null],
    ["a lone surrogate", { value: "\uD800" }, null],
  ])("gives no link for %s", async (_title, input, result) => {
    expect(
      await linkOf({ value: Schema.optional(Schema.Unknown) }, "/things/{value}", input, result),
    ).toBeUndefined();
  });

  it("gives no link when the result lacks the field or is not an object", async () => {
    expect(
      await linkOf({ value: Schema.Unknown }, "/t/{result.id}", { value: 1 }, { other: 1 }),
    ).toBeUndefined();
    expect(
      await linkOf({ value: Schema.Unknown }, "/t/{result.id}", { value: 1 }, "text"),
    ).toBeUndefined();
  });

  it("reads only own fields, never the prototype", async () => {
    expect(
      await linkOf({ value: Schema.Unknown }, "/t/{result.constructor}", { value: 1 }, {}),
    ).toBeUndefined();
  });
});

describe("app paths", () => {
  it.each([
    ["/customers/1", true],
    ["/", true],
    ["//evil.example", false],
    ["/\\evil.example", false],
    ["https://evil.example", false],
    ["javascript:alert(1)", false],
    ["/a b", false],
    ["/a\tb", false],
    ["/a\u0000", false],
    ["customers", false],
  ])("%j is an app path: %s", (path, expected) => {
    expect(isAppPath(path)).toBe(expected);
  });

  it("percentEncode leaves only unreserved characters", () => {
    expect(percentEncode("AZaz09-._~ !*'()")).toBe("AZaz09-._~%20%21%2A%27%28%29");
  });
});
