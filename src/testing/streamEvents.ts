/**
 * A scripted reply as the Messages API streams it: the events of
 * `text/event-stream`, built from the same message {@link toMessage} gives,
 * so a streamed answer and a whole one carry the same content.
 */
import type { Ids } from "../runtime/ports/ids.ts";
import type { ContentBlock } from "../runtime/prompt/model.ts";
import { type ScriptedReply, ScriptInvalid, toMessage, type WireMessage } from "./script.ts";

/** One server-sent event's data; its `type` is also the `event:` line. */
export interface WireStreamEvent {
  readonly type: string;
  readonly [key: string]: unknown;
}

/** Text pieces are at most this long unless the script says otherwise. */
const PIECE_CHARS = 20;

/** Blocks whose input is streamed as `input_json_delta` pieces. */
const INPUT_BLOCKS = new Set(["tool_use", "server_tool_use", "mcp_tool_use"]);

/**
 * The events of a streamed reply, in the API's order: `message_start`, a
 * `ping`, per block `content_block_start` → `content_block_delta`* →
 * `content_block_stop`, then `message_delta` (stop reason, stop details,
 * output tokens, container) and `message_stop`. Faults (`cutAfter`, `errorAfter`, …) are
 * not applied here; the stand-in applies them to this list.
 *
 * @example
 * ```ts
 * toStreamEvents(says("Hello", { pieces: ["Hel", "lo"] }), countingIds()).map((e) => e.type);
 * // message_start, ping, content_block_start, content_block_delta ×2, content_block_stop, message_delta, message_stop
 * ```
 */
export const toStreamEvents = (
  reply: ScriptedReply,
  ids: Ids,
  model?: string,
): ReadonlyArray<WireStreamEvent> => streamOf(toMessage(reply, ids, model), reply);

/** The events that stream `message`, with pieces as `reply` scripts them. */
export const streamOf = (
  message: WireMessage,
  reply: ScriptedReply,
): ReadonlyArray<WireStreamEvent> => {
  const { content, stop_reason, stop_details, usage, container, ...rest } = message;
  const events: WireStreamEvent[] = [
    {
      type: "message_start",
      message: {
        ...rest,
        ...(container === undefined ? {} : { container }),
        // As the API: the details come with the stop reason, in message_delta.
        ...(stop_details === undefined ? {} : { stop_details: null }),
        content: [],
        stop_reason: null,
        usage: { ...usage, output_tokens: Math.min(1, usage.output_tokens) },
      },
    },
    { type: "ping" },
  ];
  const calls = reply.toolCalls ?? [];
  const firstCall = content.length - calls.length;
  content.forEach((block, index) => {
    const call = index >= firstCall ? calls[index - firstCall] : undefined;
    const splitAt = call?.splitAt ?? (index < firstCall ? reply.blockSplitAt : undefined);
    events.push(...blockEvents(block, index, reply, splitAt));
  });
  events.push(
    {
      type: "message_delta",
      delta: {
        stop_reason,
        stop_sequence: null,
        ...(stop_details === undefined ? {} : { stop_details }),
        ...(container === undefined ? {} : { container }),
      },
      usage: { output_tokens: usage.output_tokens },
    },
    { type: "message_stop" },
  );
  return events;
};

const blockEvents = (
  block: ContentBlock,
  index: number,
  reply: ScriptedReply,
  splitAt: ReadonlyArray<number> | undefined,
): WireStreamEvent[] => {
  const delta = (d: Record<string, unknown>): WireStreamEvent => ({
    type: "content_block_delta",
    index,
    delta: d,
  });
  const start = (b: Record<string, unknown>): WireStreamEvent => ({
    type: "content_block_start",
    index,
    content_block: b,
  });
  const stop: WireStreamEvent = { type: "content_block_stop", index };
  const fields = block as Record<string, unknown>;

  if (block.type === "text" && typeof fields.text === "string") {
    const pieces = textPieces(fields.text, reply.pieces, reply.text === fields.text);
    return [
      start({ ...fields, text: "" }),
      ...pieces.map((text) => delta({ type: "text_delta", text })),
      stop,
    ];
  }
  if (block.type === "thinking" && typeof fields.thinking === "string") {
    const count = typeof reply.pieces === "number" ? reply.pieces : undefined;
    return [
      start({ ...fields, thinking: "", signature: "" }),
      ...textPieces(fields.thinking, count, false).map((thinking) =>
        delta({ type: "thinking_delta", thinking }),
      ),
      delta({ type: "signature_delta", signature: fields.signature }),
      stop,
    ];
  }
  if (INPUT_BLOCKS.has(block.type) && "input" in fields) {
    return [
      start({ ...fields, input: {} }),
      ...jsonPieces(JSON.stringify(fields.input), splitAt).map((partial_json) =>
        delta({ type: "input_json_delta", partial_json }),
      ),
      stop,
    ];
  }
  return [start(fields), stop];
};

/** `text` in pieces: the scripted ones (when they are this text's), a count, or ≤ 20 characters each. */
const textPieces = (
  text: string,
  pieces: ScriptedReply["pieces"],
  scripted: boolean,
): ReadonlyArray<string> => {
  if (Array.isArray(pieces) && scripted) {
    if (pieces.join("") !== text) {
      throw new ScriptInvalid({
        reason: `the scripted pieces do not join to the text ${JSON.stringify(text)}`,
      });
    }
    return pieces;
  }
  const chars = Array.from(text);
  const count =
    typeof pieces === "number"
      ? Math.max(1, Math.min(pieces, chars.length))
      : Math.max(1, Math.ceil(chars.length / PIECE_CHARS));
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const from = Math.floor((i * chars.length) / count);
    const to = Math.floor(((i + 1) * chars.length) / count);
    out.push(chars.slice(from, to).join(""));
  }
  return out;
};

/** A tool input's JSON text as the API streams it: `""` first, then the text cut at `splitAt`. */
export const jsonPieces = (
  json: string,
  splitAt?: ReadonlyArray<number>,
): ReadonlyArray<string> => {
  if (splitAt === undefined && json === "{}") return [""];
  const cuts = splitAt ?? [Math.floor(json.length / 3), Math.floor((2 * json.length) / 3)];
  const points = [...new Set(cuts)].filter((n) => n > 0 && n < json.length).sort((a, b) => a - b);
  const pieces = [""];
  let from = 0;
  for (const to of [...points, json.length]) {
    pieces.push(json.slice(from, to));
    from = to;
  }
  return pieces;
};

/**
 * One event as the API writes it: an `event:` line, a `data:` line, a blank line.
 *
 * @example
 * ```ts
 * encodeEvent({ type: "message_stop" }); // 'event: message_stop\ndata: {"type":"message_stop"}\n\n'
 * ```
 */
export const encodeEvent = (event: WireStreamEvent): string =>
  `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
