/** What a subcommand of the command line is, and the exit codes they share. */

/** Where a subcommand writes, and the directory its paths are relative to. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly cwd: string;
}

/** One subcommand of the table in main.ts. */
export interface CliCommand {
  readonly name: string;
  /** Its arguments, as `--help` shows them: `<app module>`. */
  readonly usage: string;
  /** One line for `--help`. */
  readonly summary: string;
  /** Runs it; resolves with the exit code. */
  readonly run: (args: string[], io: CliIo) => Promise<number>;
}

/** 0 success, 1 a failure (a module that can't be loaded, isn't an app), 2 a command line not understood. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;
