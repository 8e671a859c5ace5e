/** Bodies decoded by the contract's schemas: a bad one is a 400 naming the field, and runs nothing. */
import { MAX_BODY_BYTES } from "elyra-assistant/http";
import { fakeModel } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";
import { setup } from "./fixture.ts";

const refused = async (response: Response, status = 400) => {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: { type: string; message: string } };
  return body.error;
};

describe("bodies that do not decode", () => {
  it.each([
    ["prompt", { text: 5 }, "text: expected string, got 5"],
    ["prompt", {}, "text: is missing"],
    ["prompt", { text: "Hi", route: 7 }, "route: expected string or null, got 7"],
    ["prompt", 42, "body: expected an object, got 42"],
    ["prompt", null, "body: expected an object, got null"],
    ["confirm", { confirmId: "c1" }, "accept: is missing"],
    ["confirm", { confirmId: 1, accept: true }, "confirmId: expected string, got 1"],
    ["confirm", { confirmId: "c1", accept: "yes" }, 'accept: expected boolean, got "yes"'],
    ["confirm", { confirmId: "c1", accept: true, tool: 3 }, "tool: expected string, got 3"],
    ["selected", { kind: "customer", ids: [1, {}] }, "ids[1]: expected string or number, got {}"],
    ["selected", { ids: [] }, "kind: is missing"],
    [
      "selected",
      { kind: "customer", ids: "1" },
      'ids: expected ReadonlyArray<string | number>, got "1"',
    ],
  ])("%s %j: 400 naming the field", async (route, body, message) => {
    const t = setup(fakeModel().says("Never."));
    expect(await refused(await t.call(route, { body }))).toEqual({ type: "badRequest", message });
    await t.ada.settled();
    expect(t.ada.lastSeq()).toBe(0);
    expect(t.model.requests).toHaveLength(0);
  });

  it.each(["prompt", "confirm", "selected"])(
    "%s: a body that is not JSON is a 400",
    async (route) => {
      const t = setup();
      for (const raw of ["{text: 'hi'}", "", "Hello"]) {
        expect(await refused(await t.call(route, { raw }))).toEqual({
          type: "badRequest",
          message: "the body must be JSON",
        });
      }
      expect(await refused(await t.call(route))).toEqual({
        type: "badRequest",
        message: "the body must be JSON",
      });
    },
  );

  it("a body that is not UTF-8 is not JSON", async () => {
    const t = setup();
    const request = t.request("prompt");
    const response = await t.handle(
      new Request(request, { body: new Uint8Array([0x22, 0xff, 0xfe, 0x22]) }),
    );
    expect(await refused(response)).toMatchObject({ message: "the body must be JSON" });
  });
});

describe("bodies nested too deep (issue 16)", () => {
  const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;

  it.each(["prompt", "confirm", "selected"])(
    "%s: 10 000 levels is a 400 saying so, and nothing is logged",
    async (route) => {
      const t = setup(fakeModel().says("Never."));
      for (const raw of [nested(10_000), `{"text":${nested(64)}}`]) {
        expect(await refused(await t.call(route, { raw }))).toEqual({
          type: "badRequest",
          message: "the body is nested deeper than 64 levels",
        });
      }
      expect(t.errors).toEqual([]);
      await t.ada.settled();
      expect(t.ada.lastSeq()).toBe(0);
    },
  );

  it("live: arguments nested 10 000 levels are refused as bad arguments, nothing runs", async () => {
    const t = setup();
    const args = encodeURIComponent(`{"id":${nested(10_000)}}`);
    const response = await t.call(`live?command=customers_show&args=${args}`);
    expect(await refused(response)).toEqual({
      type: "badArguments",
      message: "arguments: nested deeper than 64 levels",
    });
    expect(t.errors).toEqual([]);
    expect(t.spies.total()).toBe(0);
  });

  it("brackets and escaped quotes inside strings are text, not nesting", async () => {
    const t = setup(fakeModel().says("Read."));
    const text = `${"[{".repeat(5_000)}\\" ]}`;
    expect((await t.call("prompt", { body: { text } })).status).toBe(202);
  });
});

describe("bodies over 64 KB", () => {
  const big = "x".repeat(MAX_BODY_BYTES);

  it("are a 413, counted as they arrive", async () => {
    const t = setup(fakeModel().says("Never."));
    expect(MAX_BODY_BYTES).toBe(65_536);
    const error = await refused(await t.call("prompt", { body: big }), 413);
    expect(error).toEqual({ type: "tooLarge", message: "the body is over 65536 bytes" });
    expect(t.model.requests).toHaveLength(0);
  });

  it("are a 413 at once when content-length says so", async () => {
    const t = setup();
    const response = await t.call("confirm", {
      raw: "{}",
      headers: { "content-length": String(MAX_BODY_BYTES + 1) },
    });
    expect(await refused(response, 413)).toMatchObject({ type: "tooLarge" });
  });

  it("one at the limit is read", async () => {
    const t = setup(fakeModel().says("Long."));
    const text = "y".repeat(MAX_BODY_BYTES - 2);
    const response = await t.call("prompt", { body: text });
    expect(response.status).toBe(202);
  });
});

describe("the resume point of /events", () => {
  it.each([
    ["last-event-id", { headers: { "last-event-id": "abc" } }, ""],
    ["lastEventId", {}, "?lastEventId=-1"],
  ])("a %s that is not a seq is a 400 naming it", async (name, call, query) => {
    const t = setup();
    const error = await refused(await t.call(`events${query}`, call));
    expect(error).toEqual({
      type: "badRequest",
      message: `${name}: must be the id of an event: its seq, optionally . and the log's epoch`,
    });
  });
});
