/**
 * The stand-in Messages API in a child process, so a benchmark's CPU is the
 * client's alone. A bench module serves it when run with `--stand-in` (its
 * script is a function of that module) and starts it from the parent.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { standInMessagesApi } from "elyra-assistant/testing";
import { SOURCE_NODE_ARGS } from "../spec/fixtures/sourceNode.ts";

type Script = Parameters<typeof standInMessagesApi>[0];
type Options = Parameters<typeof standInMessagesApi>[1];

/**
 * In the child: when `moduleUrl` is the entry point run with `--stand-in`,
 * serves `script`, prints its URL and lives as long as its stdin is open.
 */
export const serveStandInIfChild = async (
  moduleUrl: string,
  script: Script,
  options?: Options,
): Promise<void> => {
  const entry = process.argv[1];
  if (entry === undefined || pathToFileURL(entry).href !== moduleUrl) return;
  if (!process.argv.includes("--stand-in")) return;
  const api = await standInMessagesApi(script, options);
  process.stdout.write(`${api.url}\n`);
  process.stdin.resume();
  process.stdin.on("end", () => void api.close().then(() => process.exit(0)));
};

/** In the parent: runs `moduleUrl` with `--stand-in` (`node --import tsx`), resolving with its URL. */
export const startStandIn = async (
  moduleUrl: string,
): Promise<{ readonly url: string; readonly child: ChildProcess }> => {
  const child = spawn(
    process.execPath,
    [...SOURCE_NODE_ARGS, fileURLToPath(moduleUrl), "--stand-in"],
    {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const lines = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> });
  const [url] = (await Promise.race([
    once(lines, "line"),
    once(child, "exit").then(([code]) => {
      throw new Error(`the stand-in exited (${String(code)}) before it listened`);
    }),
  ])) as [string];
  return { url, child };
};
