// @vitest-environment node
/**
 * `useThreads()` and `useThread(id)` on a server: rendered to HTML with
 * `react-dom/server` as loading, asking the host nothing, with the real
 * client.
 */
import { AssistantProvider, assistantClient, useThread, useThreads } from "elyra-assistant/react";
import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";

function History() {
  const { threads, loading } = useThreads();
  const { thread } = useThread("t1");
  return (
    <p>
      {loading ? "Loading" : threads.length} {thread === undefined ? "…" : thread.title}
    </p>
  );
}

describe("the thread hooks on a server", () => {
  it("render as loading, fetching nothing", () => {
    const fetched: string[] = [];
    const client = assistantClient({
      token: "t",
      clientId: "tab-1",
      fetch: async (input) => {
        fetched.push(String(input));
        return Response.json({ threads: [] });
      },
    });
    const html = renderToString(
      <AssistantProvider client={client}>
        <History />
      </AssistantProvider>,
    );
    expect(html).toBe("<p>Loading<!-- --> <!-- -->…</p>");
    expect(fetched).toEqual([]);
  });
});
