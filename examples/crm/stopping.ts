/**
 * How the example's long-running commands stop: on Ctrl-C (SIGINT), on
 * SIGTERM, and when the process that started them goes. The last is for
 * `npm start` and its kin: npm passes a SIGTERM it gets to the shell that
 * runs the script, and that shell ends without passing it on, so without a
 * look at its parent the server would go on listening, orphaned.
 */

/** How often the parent is looked at: a stopped npm is noticed within this. */
const PARENT_CHECK_MS = 500;

/**
 * Calls `gone` once the process that started this one has ended (this one
 * is then adopted, and `process.ppid` changes). Returns what stops looking.
 */
export const whenParentGoes = (gone: () => void): (() => void) => {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    gone();
  }, PARENT_CHECK_MS);
  watch.unref();
  return () => clearInterval(watch);
};

/**
 * Runs `stop` once, on SIGINT, SIGTERM or the parent's end (the process is
 * then adopted, and `process.ppid` changes), then prints `stopped` and
 * exits 0. Later signals are heard and ignored, so a second Ctrl-C does
 * not end the process before `stop` is done.
 *
 * @example
 * ```ts
 * const crm = await startCrm({ port: 3000 });
 * stopWhenAsked(() => crm.close(), "Elyra CRM stopped.");
 * ```
 */
export const stopWhenAsked = (stop: () => Promise<unknown>, stopped: string): void => {
  let stopping = false;
  const once = () => {
    if (stopping) return;
    stopping = true;
    unwatch();
    void stop()
      .catch((error: unknown) => {
        console.error(`While stopping: ${error instanceof Error ? error.message : String(error)}`);
      })
      .then(() => {
        console.log(stopped);
        process.exit(0);
      });
  };
  const unwatch = whenParentGoes(once);
  process.on("SIGINT", once);
  process.on("SIGTERM", once);
};
