/** Where ids come from; injected so tests can make them predictable. */
export interface Ids {
  /** A fresh id, unique for the life of the process. */
  readonly next: () => string;
}

/**
 * Random ids from WebCrypto: 16 bytes (128 bits) as base64url, so a
 * confirmation id cannot be guessed.
 */
export const randomIds = (): Ids => ({
  next: () => {
    const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
    let binary = "";
    for (const byte of bytes) binary += String.fromCharCode(byte);
    return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
  },
});
