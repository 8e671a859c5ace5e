/**
 * Runs one of the package's npm scripts as a person would, with no API key in
 * its environment, and waits until it prints what says it is up.
 */
import { type ChildProcess, spawn } from "node:child_process";

const ROOT = new URL("../..", import.meta.url).pathname;

export interface RunningScript {
  /** Everything it printed so far, stdout and stderr. */
  readonly output: () => string;
  /** The first group of `ready` in its output. */
  readonly found: string;
  /** Stops it and everything it started: SIGTERM to its process group, or the signal given (SIGINT is Ctrl-C). */
  readonly stop: (signal?: NodeJS.Signals) => Promise<void>;
}

/**
 * `npm run <script>` in its own process group, resolved once `ready` matches
 * its output and `also` (when given) does too.
 */
export const runScript = (
  script: string,
  env: Readonly<Record<string, string>>,
  ready: RegExp,
  also?: RegExp,
): Promise<RunningScript> =>
  new Promise((resolve, reject) => {
    const full: NodeJS.ProcessEnv = { ...process.env, ...env };
    delete full.ANTHROPIC_API_KEY;
    delete full.ANTHROPIC_AUTH_TOKEN;
    delete full.ELYRA_PROXY_URL;
    // Its own process group, so what npm and tsx start stops with it.
    const child: ChildProcess = spawn("npm", ["run", script, "--silent"], {
      cwd: ROOT,
      env: full,
      detached: true,
    });
    let output = "";
    const timer = setTimeout(() => reject(new Error(`not up in 45 s:\n${output}`)), 45_000);
    const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
      if (child.pid === undefined || child.exitCode !== null) return;
      const exited = new Promise((done) => child.once("exit", done));
      process.kill(-child.pid, signal);
      await exited;
    };
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const found = ready.exec(output);
      if (found && (also === undefined || also.test(output))) {
        clearTimeout(timer);
        resolve({ output: () => output, found: found[1] ?? found[0], stop });
      }
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    child.once("exit", (code) =>
      reject(new Error(`npm run ${script} exited (${code}):\n${output}`)),
    );
  });
