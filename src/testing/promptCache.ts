/**
 * The stand-in Messages API's prompt cache: what a request would read from
 * the cache and write to it, as the API documents prompt caching, so that
 * tests and benches see the `usage` a real backend would report.
 *
 * The model, rule by rule:
 * - The prompt is one sequence of blocks, in the API's order: the tools
 *   (those with `defer_loading` are not in it), the system prompt, then each
 *   message's content blocks (a string content is one text block). A
 *   `tool_reference` a tool search returned stands for the referenced tool's
 *   definition, counted where it appears.
 * - A block with `cache_control` is a breakpoint: the prefix up to and
 *   including it may be cached. At most four; a one-hour breakpoint may not
 *   follow a five-minute one. Either is refused with a 400, as the API does.
 * - For each breakpoint the cache is looked up at the breakpoint and at up
 *   to 20 block boundaries before it; the longest prefix found is read.
 * - Each breakpoint past what was read, whose prefix is at least the model's
 *   minimum cacheable length, is written with its TTL (5 minutes unless
 *   `ttl: "1h"`); a prefix read has its TTL refreshed.
 * - `cache_read_input_tokens` counts the prefix read, `cache_creation_input_tokens`
 *   what was written after it (split by TTL in `cache_creation`), and
 *   `input_tokens` the rest.
 *
 * Tokens are the library's estimate ({@link estimateTokens}): what the
 * stand-in reports is comparable between variants, not the API's exact count.
 */
import { createHash } from "node:crypto";
import { estimateJsonTokens, estimateTokens } from "../runtime/prompt/tokens.ts";
import { referencesIn } from "./standInToolSearch.ts";

/**
 * The lookback of the API's cache: the positions checked per breakpoint,
 * the breakpoint itself first. A run of consecutive `tool_use` blocks counts
 * as one position, and so does a run of `tool_result` blocks.
 *
 * @example
 * ```ts
 * // A turn of more steps than this since the last breakpoint the cache saw reads no history.
 * const stepsLeft = Math.floor(CACHE_LOOKBACK_BLOCKS / 2);
 * ```
 */
export const CACHE_LOOKBACK_BLOCKS = 20;

/** The input side of a response's usage, as the API reports it with prompt caching. */
export interface CachedUsage {
  readonly input_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_creation: {
    readonly ephemeral_5m_input_tokens: number;
    readonly ephemeral_1h_input_tokens: number;
  };
}

/** How a stand-in caches prompts. */
export interface PromptCacheOptions {
  /** The time now, ms; `Date.now` unless given (a test's simulated clock). */
  readonly now?: () => number;
  /** The shortest prefix the model caches, in tokens: {@link minimumCacheable} unless given. */
  readonly minimumTokens?: (model: string) => number;
  /** Prefixes kept at most (the oldest dropped first): 10 000 unless given. */
  readonly maxEntries?: number;
}

/** A request the cache refuses, as the API would: its message. */
export class CacheRequestError extends Error {}

/** One block of the prompt: its identity in the prefix, its tokens, its breakpoint's TTL if it is one. */
interface Block {
  readonly key: string;
  readonly tokens: number;
  readonly ttl: "5m" | "1h" | undefined;
  /** `tool_use` or `tool_result` for such a block, whose run counts as one position. */
  readonly run?: string;
}

const TTL_MS = { "5m": 5 * 60_000, "1h": 60 * 60_000 } as const;

/**
 * The minimum cacheable prompt by model, in tokens, as the API documents
 * it: 512 for the Opus 5, Fable 5 and Mythos 5 families; 2 048 for Opus 4.7,
 * Mythos Preview and Haiku 3.5; 4 096 for Opus 4.5 and 4.6 and Haiku 4.5;
 * 1 024 otherwise (Sonnet 4.5 to 5, Opus 4.8, and, by assumption, the models
 * the table does not list yet, such as Sonnet 5.5).
 *
 * @example
 * ```ts
 * minimumCacheable("claude-sonnet-4-5"); // 1024
 * ```
 */
export const minimumCacheable = (model: string): number => {
  if (/opus-5|fable-5|mythos-5/.test(model)) return 512;
  if (/opus-4-7|mythos-preview|haiku-3-5/.test(model)) return 2_048;
  if (/opus-4-[56]|haiku-4-5/.test(model)) return 4_096;
  return 1_024;
};

/** A prompt cache: each request's usage, the cache written as the API would. */
export interface PromptCache {
  readonly usage: (body: Readonly<Record<string, unknown>>) => CachedUsage;
  /** Prefixes cached now. */
  readonly size: () => number;
}

/**
 * A prompt cache for a stand-in Messages API.
 *
 * @example
 * ```ts
 * const cache = promptCache({ now: () => clock.now() });
 * cache.usage(request.body).cache_read_input_tokens;
 * ```
 */
export const promptCache = (options: PromptCacheOptions = {}): PromptCache => {
  const now = options.now ?? Date.now;
  const minimum = options.minimumTokens ?? minimumCacheable;
  const maxEntries = options.maxEntries ?? 10_000;
  /** Prefix hash → when it expires and its TTL, the least recently used first. */
  const entries = new Map<string, { readonly expires: number; readonly ttlMs: number }>();

  const alive = (hash: string, at: number): boolean => {
    const entry = entries.get(hash);
    if (entry === undefined) return false;
    if (entry.expires > at) return true;
    entries.delete(hash);
    return false;
  };
  const keep = (hash: string, ttlMs: number, at: number): void => {
    entries.delete(hash);
    entries.set(hash, { expires: at + ttlMs, ttlMs });
    while (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
  };

  return {
    size: () => entries.size,
    usage: (body) => {
      const blocks = promptBlocks(body);
      const at = now();
      const breakpoints = blocks.flatMap((b, i) => (b.ttl === undefined ? [] : [i]));
      if (breakpoints.length > 4) {
        throw new CacheRequestError(
          `A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints.length}.`,
        );
      }
      let sawShort = false;
      for (const i of breakpoints) {
        if (blocks[i]?.ttl === "5m") sawShort = true;
        else if (sawShort) {
          throw new CacheRequestError(
            "a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block",
          );
        }
      }
      const hashes: string[] = [];
      const sums: number[] = [];
      let hash = "";
      let sum = 0;
      for (const block of blocks) {
        hash = createHash("sha1").update(hash).update(block.key).digest("base64");
        sum += block.tokens;
        hashes.push(hash);
        sums.push(sum);
      }
      const total = sum;
      const least = minimum(typeof body.model === "string" ? body.model : "");
      let read = -1;
      for (const b of breakpoints) {
        let checked = 0;
        for (let j = b; j >= 0 && checked < CACHE_LOOKBACK_BLOCKS; j--) {
          const run = blocks[j]?.run;
          // Inside a run of tool_use or tool_result blocks: the run's end was its one position.
          if (j < b && run !== undefined && blocks[j + 1]?.run === run) continue;
          checked++;
          if (alive(hashes[j] as string, at)) {
            read = Math.max(read, j);
            break;
          }
        }
      }
      const readTokens = read < 0 ? 0 : (sums[read] as number);
      const written = { "5m": 0, "1h": 0 };
      let from = readTokens;
      if (read >= 0) {
        const hit = hashes[read] as string;
        keep(hit, entries.get(hit)?.ttlMs ?? TTL_MS["5m"], at);
      }
      for (const b of breakpoints) {
        const upTo = sums[b] as number;
        if (b <= read || upTo < least) continue;
        const ttl = (blocks[b] as Block).ttl as "5m" | "1h";
        written[ttl] += upTo - from;
        from = upTo;
        keep(hashes[b] as string, TTL_MS[ttl], at);
      }
      const creation = written["5m"] + written["1h"];
      return {
        input_tokens: total - readTokens - creation,
        cache_read_input_tokens: readTokens,
        cache_creation_input_tokens: creation,
        cache_creation: {
          ephemeral_5m_input_tokens: written["5m"],
          ephemeral_1h_input_tokens: written["1h"],
        },
      };
    },
  };
};

type Json = Readonly<Record<string, unknown>>;

const ttlOf = (block: unknown): "5m" | "1h" | undefined => {
  if (typeof block !== "object" || block === null) return undefined;
  const control = (block as Json).cache_control as Json | undefined;
  if (control === undefined || control === null) return undefined;
  return control.ttl === "1h" ? "1h" : "5m";
};

/** A block without its `cache_control`: where a breakpoint sits does not change the prompt. */
const withoutControl = (block: unknown): unknown => {
  if (typeof block !== "object" || block === null || !("cache_control" in block)) return block;
  const { cache_control: _, ...rest } = block as Json;
  return rest;
};

/** The prompt's blocks in the API's order: tools (deferred ones left out), system, messages. */
export const promptBlocks = (body: Readonly<Record<string, unknown>>): ReadonlyArray<Block> => {
  const blocks: Block[] = [];
  const tools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
  const definitions = new Map<string, number>();
  for (const tool of tools) {
    const bare = withoutControl(tool) as Json;
    const tokens = estimateJsonTokens(bare);
    if (typeof tool.name === "string") definitions.set(tool.name, tokens);
    if (tool.defer_loading === true) {
      if (tool.cache_control != null) {
        throw new CacheRequestError(
          `tools: ${JSON.stringify(tool.name)} has defer_loading and cache_control; a deferred tool can't carry a cache breakpoint`,
        );
      }
      continue;
    }
    blocks.push({ key: `tool ${JSON.stringify(bare)}`, tokens, ttl: ttlOf(tool) });
  }
  const system = body.system;
  if (typeof system === "string" && system !== "") {
    blocks.push({ key: `system ${system}`, tokens: estimateTokens(system), ttl: undefined });
  } else if (Array.isArray(system)) {
    for (const block of system) {
      const bare = withoutControl(block);
      blocks.push({
        key: `system ${JSON.stringify(bare)}`,
        tokens: estimateJsonTokens(bare),
        ttl: ttlOf(block),
      });
    }
  }
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  for (const message of messages) {
    const role = String(message.role);
    const content =
      typeof message.content === "string"
        ? [{ type: "text", text: message.content }]
        : Array.isArray(message.content)
          ? (message.content as unknown[])
          : [];
    content.forEach((block, i) => {
      const bare = withoutControl(block);
      const key = `${i === 0 ? "message " : ""}${role} ${JSON.stringify(bare)}`;
      const tokens = estimateJsonTokens(bare) + referencedTokens(bare, definitions);
      const type = (bare as Json | null)?.type;
      const run = type === "tool_use" || type === "tool_result" ? type : undefined;
      blocks.push({ key, tokens, ttl: ttlOf(block), ...(run === undefined ? {} : { run }) });
    });
  }
  return blocks;
};

/** The definitions a tool search result loads: each `tool_reference` it holds counts as its tool's definition. */
const referencedTokens = (block: unknown, definitions: ReadonlyMap<string, number>): number => {
  if (typeof block !== "object" || block === null) return 0;
  let tokens = 0;
  for (const name of referencesIn(block as Json)) tokens += definitions.get(name) ?? 0;
  return tokens;
};
