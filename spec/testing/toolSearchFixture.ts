/** What the tool search specs of the stand-in share: deferred tools, a request, a stand-in to post to. */
import {
  type ScriptedResponse,
  type StandInMessagesApi,
  standInMessagesApi,
} from "../../src/testing.ts";

const headers = {
  "content-type": "application/json",
  authorization: "Bearer test-key",
  "anthropic-version": "2026-10-21",
};

export const tool = (name: string, description: string, args: Record<string, string> = {}) => ({
  name,
  description,
  input_schema: {
    type: "object",
    properties: Object.fromEntries(
      Object.entries(args).map(([arg, about]) => [arg, { type: "string", description: about }]),
    ),
  },
  defer_loading: true,
});

export const customersShow = tool("customers_show", "Show one customer by id.", {
  id: "The customer.",
});
export const invoicesIndex = tool(
  "invoices_index",
  "List invoices; only the overdue ones if asked.",
  {
    overdue: "Only the invoices past their due date.",
  },
);
export const projectsArchive = tool("projects_archive", "Archive a project.", {
  reason: "Why, such as a lapsed contract.",
});
export const BM25 = { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" };
export const REGEX = { type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" };
export const deferredTools = [customersShow, invoicesIndex, projectsArchive];

export const bodyWith = (more: Record<string, unknown> = {}) => ({
  model: "claude-sonnet-5-5",
  max_tokens: 1024,
  messages: [{ role: "user", content: "Which invoices are overdue?" }],
  tools: [...deferredTools, BM25],
  ...more,
});

/** A stand-in per spec: `played` starts one with a script and posts to it, `post` posts again. */
export const session = () => {
  let api: StandInMessagesApi | undefined;
  const post = async (payload: unknown) => {
    const response = await fetch(`${api?.url}/v1/messages`, {
      method: "POST",
      headers,
      body: JSON.stringify(payload),
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
  const played = async (script: ScriptedResponse[], payload: unknown = bodyWith()) => {
    api = await standInMessagesApi(script);
    return post(payload);
  };
  const close = async () => {
    await api?.close();
    api = undefined;
  };
  return { post, played, close };
};

export type Block = Record<string, unknown> & { type: string };

export const references = (block: Block | undefined): string[] => {
  const content = (block?.content ?? {}) as { tool_references?: Array<{ tool_name: string }> };
  return (content.tool_references ?? []).map((r) => r.tool_name);
};
