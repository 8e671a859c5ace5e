/** Where ids come from; injected so tests can make them predictable. */
export interface Ids {
  /** A fresh id, unique for the life of the process. */
  readonly next: () => string;
}

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const ID_BYTES = 16;
const POOL_BYTES = 4096;

/**
 * Random ids from WebCrypto: 16 bytes (128 bits) as 22 base64url characters,
 * so a confirmation id cannot be guessed. Bytes are drawn 4 KB at a time: one
 * `getRandomValues` call per 256 ids, since that call, not the encoding, is
 * what an id costs. The default of the host's `ids` and `confirmIds`.
 *
 * @example
 * ```ts
 * const ids = randomIds();
 * ids.next(); // e.g. "htJhawUT0X59l6nxWaLHyA"
 * const host = createHost(app, { model, confirmIds: ids });
 * ```
 */
export const randomIds = (): Ids => {
  const pool = new Uint8Array(POOL_BYTES);
  let at = POOL_BYTES;
  return {
    next: () => {
      if (at + ID_BYTES > POOL_BYTES) {
        globalThis.crypto.getRandomValues(pool);
        at = 0;
      }
      let id = "";
      // 16 bytes = five 3-byte groups (20 characters) and one byte (2 characters).
      for (let i = at; i < at + 15; i += 3) {
        const n =
          ((pool[i] as number) << 16) | ((pool[i + 1] as number) << 8) | (pool[i + 2] as number);
        id +=
          BASE64URL[n >> 18]! +
          BASE64URL[(n >> 12) & 63]! +
          BASE64URL[(n >> 6) & 63]! +
          BASE64URL[n & 63]!;
      }
      const last = pool[at + 15] as number;
      id += BASE64URL[last >> 2]! + BASE64URL[(last & 3) << 4]!;
      pool.fill(0, at, at + ID_BYTES);
      at += ID_BYTES;
      return id;
    },
  };
};
