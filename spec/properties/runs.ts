/**
 * How hard the properties try: each `numRuns` is its base number times
 * ELYRA_PROPERTY_SCALE (1 when unset), so
 *
 *     ELYRA_PROPERTY_SCALE=10 npx vitest run $(grep -rl numRuns spec --include=*.spec.ts)
 *
 * tries ten times as many cases. Timeouts grow with the runs when the scale
 * is above 1, so a longer run does not fail on time alone.
 */

export const SCALE_VARIABLE = "ELYRA_PROPERTY_SCALE";

/** vitest.config.ts's `testTimeout`: the time a test has when it names none. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** The scale `raw` names: unset or empty is 1; else a positive finite number, or a clear error. */
export const propertyScale = (raw: string | undefined): number => {
  if (raw === undefined || raw.trim() === "") return 1;
  const scale = Number(raw);
  if (!Number.isFinite(scale) || scale <= 0)
    throw new Error(
      `${SCALE_VARIABLE} must be a positive finite number (such as 10), not ${JSON.stringify(raw)}`,
    );
  return scale;
};

const scale = propertyScale(process.env[SCALE_VARIABLE]);

/** A property's number of runs at this scale: `n` times the scale, at least 1. */
export const runs = (n: number): number => Math.max(1, Math.ceil(n * scale));

/**
 * A property test's timeout at this scale: `ms` (the config's default when not
 * given) as it is at scale 1 or below, times the scale above 1.
 */
export const timeoutFor = (ms: number = DEFAULT_TIMEOUT_MS): number =>
  scale > 1 ? Math.ceil(ms * scale) : ms;
