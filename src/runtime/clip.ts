/**
 * Cuts `text` to at most `max` characters (UTF-16 units), the last an ellipsis
 * when anything was cut. A cut never splits a surrogate pair: it falls one
 * character earlier instead.
 */
export const clip = (text: string, max: number): string => {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
};
