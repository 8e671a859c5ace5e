/**
 * faultyModel: steps reject as the Anthropic adapter rejects them (checked
 * against the real SDK and the stand-in Messages API), or are cut off after
 * some of their text, as the plan says; heal() stops the faults; a turn with
 * a failed step ends Failed and the window answers the next prompt.
 */
import { createApp, createHost, ModelError, type ModelRequest } from "elyra-assistant";
import { anthropic } from "elyra-assistant/anthropic";
import {
  fails,
  fakeModel,
  faultyModel,
  type ModelFault,
  type ModelStepInfo,
  type ScriptedResponse,
  type StandInMessagesApi,
  says,
  standInMessagesApi,
} from "elyra-assistant/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";

const request: ModelRequest = {
  model: "claude-sonnet-5-5",
  system: "",
  messages: [{ role: "user", content: "Go" }],
  tools: [],
  maxTokens: 1024,
};

/** Plays one step; the response or the rejection, and the text told. */
const play = async (
  model: ReturnType<typeof faultyModel>,
  signal = new AbortController().signal,
) => {
  const pieces: string[] = [];
  const outcome = await model.step(request, { signal, onText: (p) => pieces.push(p) }).then(
    (response) => ({ ok: true as const, response }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  return { outcome, pieces };
};

const rejection = async (model: ReturnType<typeof faultyModel>) => {
  const { outcome } = await play(model);
  if (outcome.ok) throw new Error("the step answered; expected it to reject");
  expect(outcome.error).toBeInstanceOf(ModelError);
  return outcome.error as ModelError;
};

describe("faultyModel", () => {
  it("is the inner model where the plan has no fault", async () => {
    const inner = fakeModel().says("Hello there.");
    const model = faultyModel(inner, []);
    const { outcome, pieces } = await play(model);
    expect(outcome).toMatchObject({ ok: true, response: { stopReason: "end_turn" } });
    expect(pieces.join("")).toBe("Hello there.");
    expect(model.injected).toEqual([]);
    expect(model.steps()).toBe(1);
  });

  it("a network error is the adapter's connection error, and does not use up the inner script", async () => {
    const inner = fakeModel().says("Hi.");
    const model = faultyModel(inner, [{ kind: "network" }]);
    expect(await rejection(model)).toMatchObject({
      kind: "connection",
      message: "Connection error.",
    });
    expect(inner.requests).toHaveLength(0);
    expect(inner.remaining()).toBe(1);
    expect(await play(model)).toMatchObject({ outcome: { ok: true }, pieces: ["Hi."] });
  });

  it.each<[ModelFault, Partial<ModelError>]>([
    [{ kind: "timeout" }, { kind: "timeout", message: "Request timed out." }],
    [
      { kind: "network", message: "ECONNRESET" },
      { kind: "connection", message: "ECONNRESET" },
    ],
    [
      { kind: "api", status: 529 },
      { kind: "overloaded", status: 529, message: "Overloaded" },
    ],
    [
      { kind: "api", status: 429 },
      { kind: "rateLimited", status: 429 },
    ],
    [
      { kind: "api", status: 401 },
      { kind: "auth", status: 401, message: "invalid x-api-key" },
    ],
    [
      { kind: "api", status: 500 },
      { kind: "server", status: 500 },
    ],
    [
      { kind: "api", status: 400, message: "bad" },
      { kind: "invalidRequest", message: "bad" },
    ],
    [
      { kind: "api", status: 503, type: "overloaded_error" },
      { kind: "overloaded", status: 503 },
    ],
  ])("%o rejects with %o", async (fault, expected) => {
    expect(await rejection(faultyModel(fakeModel(), [fault]))).toMatchObject(expected);
  });

  it("a cut stream tells the first pieces of the inner answer, then rejects with decode", async () => {
    const inner = fakeModel().says("one two three four");
    const model = faultyModel(inner, [{ kind: "cut", afterPieces: 2 }]);
    const { outcome, pieces } = await play(model);
    expect(pieces).toEqual(["one ", "two "]);
    expect(outcome).toMatchObject({
      ok: false,
      error: { kind: "decode", message: "the stream ended before message_stop (terminated)" },
    });
    expect(inner.remaining()).toBe(0);
  });

  it("a stream cut by an error event rejects as the adapter reads that event", async () => {
    const overloadedCut = faultyModel(fakeModel().says("a b"), [
      { kind: "cut", afterPieces: 1, error: { type: "overloaded_error" } },
    ]);
    expect(await play(overloadedCut)).toMatchObject({
      pieces: ["a "],
      outcome: { error: { kind: "overloaded", status: 529, message: "Overloaded" } },
    });
    const apiCut = await rejection(
      faultyModel(fakeModel().says("a"), [{ kind: "cut", error: { type: "api_error" } }]),
    );
    expect(apiCut).toMatchObject({ kind: "server", message: "Internal server error" });
    expect(apiCut.status).toBeUndefined();
  });

  it("a step already aborted rejects as aborted, whatever the plan", async () => {
    const controller = new AbortController();
    controller.abort();
    const { outcome } = await play(
      faultyModel(fakeModel(), [{ kind: "network" }]),
      controller.signal,
    );
    expect(outcome).toMatchObject({ ok: false, error: { kind: "aborted" } });
  });

  it("asks a plan function about each step, and heal() stops the faults", async () => {
    const asked: ModelStepInfo[] = [];
    const model = faultyModel(fakeModel().says("a").says("b"), (step) => {
      asked.push(step);
      return { kind: "api", status: 529 };
    });
    await rejection(model);
    expect(asked).toEqual([{ n: 0, request }]);
    expect(model.healed()).toBe(false);
    model.heal();
    expect(model.healed()).toBe(true);
    expect(await play(model)).toMatchObject({ outcome: { ok: true }, pieces: ["a"] });
    expect(model.injected).toEqual([{ n: 0, fault: { kind: "api", status: 529 } }]);
    expect(model.steps()).toBe(2);
  });

  it("in a host: the faulted turn ends Failed, the next one is answered", async () => {
    const app = createApp({
      commands: spyCommands().commands,
      userAbilities: (u) => (u as TestUser).abilities,
      assistant: { allow: ["customers.*"], confirm: [] },
    });
    const model = faultyModel(fakeModel().says("Hello."), [{ kind: "api", status: 529 }]);
    const host = createHost(app, { model });
    const w = host.window("w", { user: { name: "Ada", abilities: ["customers.*"] } });
    expect(await w.prompt("hi")).toMatchObject({ _tag: "Failed" });
    expect(await w.prompt("again")).toMatchObject({ _tag: "Answered", text: "Hello." });
    await host.close();
  });
});

describe("faultyModel rejects as anthropic() does against the API", () => {
  let api: StandInMessagesApi;
  let current: ScriptedResponse = says("x");
  beforeAll(async () => {
    api = await standInMessagesApi(() => current);
  });
  afterAll(() => api.close());

  const real = (stream: boolean) =>
    anthropic({ baseURL: api.url, apiKey: "test-key", maxRetries: 0, stream });
  const errorOf = async (model: { step: ReturnType<typeof faultyModel>["step"] }) => {
    const error = await model
      .step(request, { signal: AbortSignal.timeout(10_000), onText: () => {} })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(ModelError);
    const { kind, message, status } = error as ModelError;
    return { kind, message, status };
  };

  it.each([
    [529, "overloaded_error", "Overloaded"],
    [429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"],
    [401, "authentication_error", "invalid x-api-key"],
    [500, "api_error", "Internal server error"],
    [400, "invalid_request_error", "Invalid request"],
  ])("an API error %d %s", async (status, type, message) => {
    current = fails(status, type, message, { shouldRetry: false });
    const fake = await errorOf(faultyModel(fakeModel(), [{ kind: "api", status }]));
    expect(fake).toEqual(await errorOf(real(true)));
    expect(fake).toEqual(await errorOf(real(false)));
  });

  it("a stream cut after it started", async () => {
    current = says("one two three", { cutAfter: 4, cutHow: "reset" });
    const fake = await errorOf(faultyModel(fakeModel().says("x"), [{ kind: "cut" }]));
    expect(fake).toEqual(await errorOf(real(true)));
  });

  it("a stream ended by an error event", async () => {
    current = says("one two three", { errorAfter: { events: 4, type: "overloaded_error" } });
    const fake = await errorOf(
      faultyModel(fakeModel().says("x"), [{ kind: "cut", error: { type: "overloaded_error" } }]),
    );
    expect(fake).toEqual(await errorOf(real(true)));
  });
});
