/**
 * The example CRM tells a failed model request twice: in the panel (the
 * turn's `Failed` event) and in the server's own log, so the person running
 * `npm start` sees a bad key or a network fault without opening the page.
 */
import { ModelError } from "elyra-assistant";
import { fakeModel } from "elyra-assistant/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loggingFailures } from "../../examples/crm/modelSource.ts";
import { type RunningCrm, startCrm } from "../../examples/crm/server.ts";

let crm: RunningCrm | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await crm?.close();
  crm = undefined;
});

const request = { model: "m", system: "", messages: [], tools: [], maxTokens: 10 } as never;

describe("the example CRM's model failures", () => {
  it("a failed request is logged on the server and still rejects as the model's error; a stopped one is not logged", async () => {
    const lines: string[] = [];
    const failing = loggingFailures(
      fakeModel().fails(401, "authentication_error", "invalid x-api-key"),
      (line) => lines.push(line),
    );
    const failed = failing.step(request, { signal: new AbortController().signal });
    await expect(failed).rejects.toBeInstanceOf(ModelError);
    expect(lines).toEqual([
      expect.stringMatching(/^Elyra CRM: a model request failed \(auth: .*invalid x-api-key.*\)$/),
    ]);
    const stop = new AbortController();
    const hanging = loggingFailures(fakeModel().hangs(), (line) => lines.push(line));
    const stopped = hanging.step(request, { signal: stop.signal });
    stop.abort();
    await expect(stopped).rejects.toBeDefined();
    expect(lines).toHaveLength(1);
  });

  it("npm start's server logs a prompt whose model fails", async () => {
    const errors: unknown[][] = [];
    vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
      errors.push(args);
    });
    crm = await startCrm({
      dbPath: ":memory:",
      model: fakeModel().fails(401, "authentication_error", "invalid x-api-key"),
    });
    const html = await (await fetch(`${crm.url}/`)).text();
    const token = /name="elyra-token" content="([^"]+)"/.exec(html)?.[1] as string;
    const headers = {
      "x-elyra-token": token,
      "x-elyra-client": "model-errors",
      "content-type": "application/json",
    };
    const prompt = await fetch(`${crm.url}/__assistant/prompt`, {
      method: "POST",
      headers,
      body: JSON.stringify({ text: "hello", route: "/" }),
    });
    expect(prompt.status).toBe(202);
    await expect
      .poll(() => errors.map((args) => String(args[0])).join("\n"), { timeout: 10_000 })
      .toMatch(/a model request failed \(auth: .*invalid x-api-key/);
  });
});
