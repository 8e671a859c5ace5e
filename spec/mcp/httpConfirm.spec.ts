/**
 * Confirmation by elicitation over Streamable HTTP, for a client that never
 * opens the optional standalone GET event stream: the question must come on
 * the tool call's own response stream (issue 16, defect 10).
 */
import {
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import { createApp } from "elyra-assistant";
import { afterEach, describe, expect, it } from "vitest";
import { spyCommands } from "../fixtures/spyCommands.ts";
import { loopback, textOf, withoutGetStream } from "./loopback.ts";

const net = loopback();
afterEach(net.cleanup);

/** Long enough that only a question that never arrived runs into it. */
const CONFIRM_TIMEOUT_MS = 5_000;

const confirmApp = () => {
  const spies = spyCommands();
  const app = createApp({
    commands: spies.commands,
    userAbilities: () => [],
    mcp: { allow: ["customers.*"], confirm: ["customers.delete"] },
  });
  return { app, spies };
};

/** A client without the GET stream, whose user answers `answer`; `asked` resolves at the first question. */
const connectAnswering = async (url: URL, answer: ElicitResult) => {
  const { client } = await net.connect(url, {
    capabilities: { elicitation: { form: {} } },
    fetch: withoutGetStream,
  });
  const asked: Array<ElicitRequest["params"]> = [];
  let told: (() => void) | undefined;
  const firstQuestion = new Promise<void>((resolve) => {
    told = resolve;
  });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params);
    told?.();
    return answer;
  });
  return { client, asked, firstQuestion };
};

/** Resolves with how long `promise` took, or rejects after `ms`. */
const within = async (promise: Promise<unknown>, ms: number): Promise<number> => {
  const started = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`nothing within ${ms} ms`)), ms);
  });
  try {
    await Promise.race([promise, late]);
    return Date.now() - started;
  } finally {
    clearTimeout(timer);
  }
};

describe("mcpHttp: confirmation for a client without the GET stream", () => {
  it("asks on the call's own stream: accepted, the command runs once", async () => {
    const { app, spies } = confirmApp();
    const { url } = await net.serve(app, { confirmTimeoutMs: CONFIRM_TIMEOUT_MS });
    const { client, asked, firstQuestion } = await connectAnswering(url, {
      action: "accept",
      content: { confirm: true },
    });
    const call = client.callTool({ name: "customers_delete", arguments: { id: 2 } });
    // Should the question never come, the call is cut short when the client closes: not unhandled.
    call.catch(() => undefined);
    // Well under the confirmation's timeout: the question is not lost on a stream nobody opened.
    await within(firstQuestion, CONFIRM_TIMEOUT_MS / 2);
    const result = await call;
    expect(result.isError).toBeUndefined();
    expect(JSON.parse(textOf(result))).toEqual({ deleted: 2 });
    expect(asked).toHaveLength(1);
    expect(asked[0]?.message).toMatch(/^Run customers_delete\?/);
    expect(spies.runs.get("customers_delete")).toBe(1);
    expect(net.methods).not.toContain("GET");
  });

  it("asks on the call's own stream: declined, the command does not run", async () => {
    const { app, spies } = confirmApp();
    const { url } = await net.serve(app, { confirmTimeoutMs: CONFIRM_TIMEOUT_MS });
    const { client, asked, firstQuestion } = await connectAnswering(url, { action: "decline" });
    const call = client.callTool({ name: "customers_delete", arguments: { id: 2 } });
    // Should the question never come, the call is cut short when the client closes: not unhandled.
    call.catch(() => undefined);
    await within(firstQuestion, CONFIRM_TIMEOUT_MS / 2);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("The user didn't confirm customers_delete, so it did not run.");
    expect(asked).toHaveLength(1);
    expect(spies.total()).toBe(0);
    expect(net.methods).not.toContain("GET");
  });
});
