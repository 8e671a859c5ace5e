/**
 * URL sources: an `image` or `document` block whose source is `{ type: "url" }`
 * makes the API fetch a URL the client chose, so the proxy refuses it, as it
 * refuses `mcp_servers`, unless `allowUrlSources: true`. On loopback through
 * the stand-in, then as a property of the handler with a fake upstream.
 */
import { createProxy } from "elyra-assistant/proxy";
import { says } from "elyra-assistant/testing";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { runs } from "../properties/runs.ts";
import { wireJsonValue } from "../properties/wire.ts";
import { asForwarded, ask, MODEL, proxied, USER_TOKEN } from "./fixture.ts";

type Setup = Awaited<ReturnType<typeof proxied>>;
let setup: Setup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

const URL_SOURCE = { type: "url", url: "http://169.254.169.254/latest/meta-data/" } as const;
const image = (source: unknown) => ({ type: "image", source });
const document = (source: unknown) => ({ type: "document", source });
const PNG = { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } as const;

/** A conversation whose last user message holds `content`, after a tool call. */
const conversation = (content: unknown) => ({
  ...ask("Look"),
  messages: [
    { role: "user", content: "Look at this" },
    {
      role: "assistant",
      content: [{ type: "tool_use", id: "toolu_1", name: "fetch_logo", input: {} }],
    },
    { role: "user", content },
  ],
});

/** Posts `body` to the proxy as Ada; the status and the body of the answer. */
const post = async (body: unknown) => {
  const response = await fetch(`${setup?.url}/v1/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${USER_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
};

const refused = (path: string) => ({
  status: 422,
  json: {
    type: "error",
    error: {
      type: "invalid_request_error",
      message: `${path}: URL sources aren't proxied (the API would fetch the URL); send the data as base64`,
    },
  },
});

describe("URL sources", () => {
  it("an image or a document with a URL source is refused, 422 naming where, wherever it is in the content; nothing goes upstream", async () => {
    setup = await proxied(() => says("never"));
    const cases: Array<[unknown, string]> = [
      [conversation([image(URL_SOURCE)]), "messages[2].content[0].source"],
      [
        conversation([{ type: "text", text: "This:" }, document(URL_SOURCE)]),
        "messages[2].content[1].source",
      ],
      [
        conversation([
          { type: "tool_result", tool_use_id: "toolu_1", content: [image(URL_SOURCE)] },
        ]),
        "messages[2].content[0].content[0].source",
      ],
      [
        conversation([
          document({ type: "content", content: [{ type: "text", text: "a" }, image(URL_SOURCE)] }),
        ]),
        "messages[2].content[0].source.content[1].source",
      ],
      [
        { ...ask("Hi"), system: [{ type: "text", text: "Be brief." }, image(URL_SOURCE)] },
        "system[1].source",
      ],
    ];
    for (const [body, path] of cases) expect(await post(body)).toEqual(refused(path));
    expect(setup.api.requests).toEqual([]);
  });

  it("base64, file and text sources, a URL in text, a search result's source and a tool call's own arguments pass", async () => {
    setup = await proxied(() => says("Seen."));
    const body = conversation([
      { type: "tool_result", tool_use_id: "toolu_1", content: [image(PNG)] },
      image({ type: "file", file_id: "file_011CNha8iCJcU1wXNR6q4V8w" }),
      document({ type: "text", media_type: "text/plain", data: "See https://example.com/a.pdf" }),
      {
        type: "search_result",
        source: "https://example.com/page",
        title: "A page",
        content: [{ type: "text", text: "found" }],
      },
      { type: "text", text: "and https://example.com/logo.png" },
    ]);
    const withArguments = {
      ...body,
      messages: [
        ...body.messages.slice(0, 1),
        {
          role: "assistant",
          content: [
            {
              type: "tool_use",
              id: "toolu_1",
              name: "contacts_import",
              // The app's own command arguments, echoed back: never fetched by the API.
              input: { source: { type: "url", url: "https://crm.example/contacts.csv" } },
            },
          ],
        },
        ...body.messages.slice(2),
      ],
    };
    expect((await post(withArguments)).status).toBe(200);
    expect(setup.api.requests.map((request) => request.body)).toEqual([asForwarded(withArguments)]);
  });

  it("`allowUrlSources: true` passes them, as sent", async () => {
    setup = await proxied(() => says("Fetched."), { allowUrlSources: true });
    const body = conversation([
      image(URL_SOURCE),
      { type: "tool_result", tool_use_id: "toolu_1", content: [document(URL_SOURCE)] },
    ]);
    expect((await post(body)).status).toBe(200);
    expect(setup.api.requests.map((request) => request.body)).toEqual([asForwarded(body)]);
  });
});

/** A drawn piece of content, and whether it holds a URL source the API would fetch. */
interface Drawn {
  readonly value: unknown;
  readonly url: boolean;
}

const drawn = (value: unknown, url = false): Drawn => ({ value, url });
const all = (pieces: ReadonlyArray<Drawn>): Drawn =>
  drawn(
    pieces.map((piece) => piece.value),
    pieces.some((piece) => piece.url),
  );

const urlSource = fc.webUrl().map((url) => drawn({ type: "url", url }, true));
const otherSource = fc.oneof(
  fc.constant(drawn(PNG)),
  fc.string().map((file_id) => drawn({ type: "file", file_id })),
  fc.webUrl().map((url) => drawn({ type: "text", media_type: "text/plain", data: url })),
);

/** Content blocks as the API takes them, nested where it nests them: tool results, documents of blocks. */
const { block } = fc.letrec<{ block: Drawn; blocks: Drawn; source: Drawn }>((tie) => ({
  block: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.oneof(fc.string(), fc.webUrl()).map((text) => drawn({ type: "text", text })),
    tie("source").map((source) => drawn(image(source.value), source.url)),
    tie("source").map((source) => drawn(document(source.value), source.url)),
    fc
      .oneof(
        fc.string().map((text) => drawn(text)),
        tie("blocks"),
      )
      .map((content) =>
        drawn({ type: "tool_result", tool_use_id: "toolu_1", content: content.value }, content.url),
      ),
    // A tool call's arguments are the app's, never fetched: a URL-source shape there is data.
    fc
      .oneof(
        wireJsonValue({ maxDepth: 2 }),
        urlSource.map((source) => ({ source: source.value })),
      )
      .map((input) => drawn({ type: "tool_use", id: "toolu_1", name: "lookup", input })),
  ),
  blocks: fc.array(tie("block"), { maxLength: 3 }).map(all),
  source: fc.oneof(
    urlSource,
    otherSource,
    tie("blocks").map((content) => drawn({ type: "content", content: content.value }, content.url)),
  ),
}));

const messages = fc
  .array(
    fc
      .oneof(
        fc.string().map((text) => drawn(text)),
        fc.array(block, { maxLength: 4 }).map(all),
      )
      .chain((content) =>
        fc
          .constantFrom("user", "assistant")
          .map((role) => drawn({ role, content: content.value }, content.url)),
      ),
    { minLength: 1, maxLength: 3 },
  )
  .map(all);

describe("for random conversations", () => {
  it("no request with a URL source anywhere in its content is forwarded unless allowUrlSources", async () => {
    const seen = { url: 0, forwarded: 0 };
    await fc.assert(
      fc.asyncProperty(messages, fc.boolean(), async (drawnMessages, allowUrlSources) => {
        const sent: unknown[] = [];
        const handle = createProxy<string>({
          apiKey: "sk-ant-server",
          authenticate: () => "ada",
          models: [MODEL],
          maxTokens: 1024,
          allowUrlSources,
          upstream: "https://upstream.test",
          fetch: async (_url, init) => {
            sent.push(JSON.parse(String(init?.body)));
            return Response.json({ type: "message", content: [], usage: {} });
          },
          onError: (error) => {
            throw error;
          },
        });
        const body = { model: MODEL, max_tokens: 100, messages: drawnMessages.value };
        const response = await handle(
          new Request("https://app.test/v1/messages", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(body),
          }),
        );
        const answer: unknown = await response.json();
        if (drawnMessages.url) seen.url++;
        const forward = !drawnMessages.url || allowUrlSources;
        if (forward) seen.forwarded++;
        expect(sent).toEqual(forward ? [asForwarded(body)] : []);
        if (!forward) {
          expect(response.status).toBe(422);
          expect(answer).toMatchObject({
            type: "error",
            error: {
              type: "invalid_request_error",
              message: expect.stringMatching(/^messages\[\d+\]\..*source: URL sources aren't/),
            },
          });
        }
      }),
      { numRuns: runs(1_000) },
    );
    // Both sides are tried often.
    expect(seen.url).toBeGreaterThan(runs(1_000) / 10);
    expect(seen.forwarded).toBeGreaterThan(runs(1_000) / 10);
  });
});
