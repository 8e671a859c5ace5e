/**
 * The contract's names (`../http/contract.ts`) as the browser uses them.
 * Copied rather than imported: that module builds effect schemas when it
 * loads, which would put all of effect into the browser bundle. A spec checks
 * these equal the contract's.
 */

/** Where the routes are mounted unless told otherwise. */
export const BASE_PATH = "/__assistant";

/** The header that carries the host's token. */
export const TOKEN_HEADER = "x-elyra-token";

/** The header that names the window (its client id). */
export const CLIENT_HEADER = "x-elyra-client";

/** The header a resumed event stream names the last seq seen with. */
export const LAST_EVENT_ID_HEADER = "Last-Event-ID";
