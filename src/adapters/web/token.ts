/** The host's token, compared so the time taken says nothing of where a guess goes wrong. */

const encoder = new TextEncoder();

/**
 * Whether `given` is `expected`, in time that depends only on `expected`'s
 * length. An empty expected token matches nothing: a host with no token is
 * closed, not open.
 */
export const sameToken = (given: string | null | undefined, expected: string): boolean => {
  if (expected.length === 0) return false;
  const a = encoder.encode(given ?? "");
  const b = encoder.encode(expected);
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a[i] ?? 0) ^ (b[i] as number);
  return diff === 0;
};
