/**
 * Who is calling: the in-app assistant, or an external agent over MCP with the
 * client name from its handshake.
 */
export type Origin =
  | { readonly kind: "assistant" }
  | { readonly kind: "agent"; readonly client: string };

/**
 * Who a command runs for, as its `run` is told: a call's origin, or the app's
 * own screen (`frontend`) running a live query.
 */
export type RunOrigin = Origin | { readonly kind: "frontend" };

/**
 * How the model called a tool: directly, or from code running in Anthropic's
 * code execution sandbox (`toolId` is the `server_tool_use` block running it).
 */
export type Caller =
  | { readonly type: "direct" }
  | { readonly type: "code"; readonly toolId: string };

/**
 * Declaration merging point for the app's user type.
 *
 * @example
 * ```ts
 * declare module "elyra-assistant" {
 *   interface Register { user: { name: string; abilities: string[] } }
 * }
 * ```
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging
export interface Register {}

/** The app's user type, as registered, or `unknown`. */
export type User = Register extends { readonly user: infer U } ? U : unknown;
