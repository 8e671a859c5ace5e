/**
 * URL sources: a content block whose `source` is `{ type: "url", url }` (an
 * `image` or a `document` today) makes the API fetch that URL, one the client
 * chose, from Anthropic's side. The proxy finds them wherever content can be
 * nested: in a message's content, a tool result's content, a document made of
 * blocks, the system prompt.
 */

/** A key as a path reads it: `.content`, or `["odd key"]`. */
const step = (key: string): string =>
  /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;

const isUrlSource = (value: unknown): boolean =>
  typeof value === "object" && value !== null && "type" in value && value.type === "url";

/** A tool call (`tool_use`, `server_tool_use`, …): its `input` is the call's arguments, never fetched. */
const isToolCall = (value: object): boolean =>
  "type" in value && typeof value.type === "string" && value.type.endsWith("tool_use");

/**
 * Where the first URL source in `value` is (in document order, at any
 * depth), as a path from `at`: `messages[2].content[0].source`; `undefined`
 * when there is none. A tool call's `input` is not looked into: it holds the
 * app's own arguments, which the API passes on and never fetches. Iterative,
 * so a deeply nested body cannot overflow the stack.
 *
 * @example
 * ```ts
 * findUrlSource([{ role: "user", content: [{ type: "image", source: { type: "url", url } }] }], "messages");
 * // "messages[0].content[0].source"
 * ```
 */
export const findUrlSource = (value: unknown, at: string): string | undefined => {
  const pending: Array<{ readonly node: unknown; readonly path: string }> = [
    { node: value, path: at },
  ];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, path } = next;
    if (typeof node !== "object" || node === null) continue;
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--)
        pending.push({ node: node[i], path: `${path}[${i}]` });
      continue;
    }
    if ("source" in node && isUrlSource(node.source)) return `${path}.source`;
    const skipInput = isToolCall(node);
    const entries = Object.entries(node);
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i];
      if (entry === undefined || (skipInput && entry[0] === "input")) continue;
      pending.push({ node: entry[1], path: `${path}${step(entry[0])}` });
    }
  }
  return undefined;
};
