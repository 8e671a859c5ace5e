/** Cuts `text` to at most `max` characters, the last an ellipsis when anything was cut. */
export const clip = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;
