/**
 * The secrets port over one JSON file, readable by its owner only. Each
 * change writes a fresh file beside it and renames it over the old one, so a
 * reader (or a crash) sees the whole of the old file or the whole of the new.
 *
 * An OS keychain would be better where there is one; `@napi-rs/keyring`
 * (maintained; `keytar` is archived) needs the Secret Service over D-Bus on
 * Linux, which a headless server rarely has ("Couldn't access platform
 * storage"), so this store is the one shipped.
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Data } from "effect";
import type { Secrets } from "../../runtime/ports/secrets.ts";

/** The file's mode: its owner reads and writes, nobody else. */
const FILE_MODE = 0o600;
/** The directory's mode: its owner only. */
const DIR_MODE = 0o700;

/**
 * The file at `path` is not a secrets file this version can read (not JSON,
 * or not `{ version: 1, secrets: {…} }`): every `get`, `set` and `delete`
 * rejects with it, and the file is never written over.
 */
export class SecretsFileInvalid extends Data.TaggedError("SecretsFileInvalid")<{
  readonly path: string;
  /** The `JSON.parse` error, when the file is not JSON. */
  readonly cause?: unknown;
}> {
  override get message(): string {
    return `elyra-assistant/secrets: ${this.path} is not a secrets file of version 1`;
  }
}

/** What the file holds. */
interface SecretsFile {
  readonly version: 1;
  readonly secrets: Readonly<Record<string, string>>;
}

/**
 * Secrets kept in a JSON file at `path`, mode 0600 in a directory of mode
 * 0700 (made if missing). A file or directory found readable by others is
 * narrowed back before it is read. Changes from this process are made one at
 * a time; the file is read afresh for each, so an edit by hand is seen.
 *
 * @example
 * ```ts
 * import { fileSecrets } from "elyra-assistant/secrets";
 * const secrets = fileSecrets("/var/lib/crm/assistant/secrets.json");
 * const source = modelSource({ secrets, env: process.env });
 * ```
 */
export const fileSecrets = (path: string): Secrets => {
  const dir = dirname(path);
  // Writes queue behind each other: two at once would each rename over the other's change.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };

  // A Map, not an object: a user key such as `__proto__` is a key like any other.
  const read = async (): Promise<Map<string, string>> => {
    await mkdir(dir, { recursive: true, mode: DIR_MODE });
    await narrow(dir, DIR_MODE);
    let text: string;
    try {
      await narrow(path, FILE_MODE);
      text = await readFile(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return new Map();
      throw error;
    }
    // Never written over: what is there may be someone's keys in a shape this version can't read.
    let parsed: Partial<SecretsFile> | null;
    try {
      parsed = JSON.parse(text) as Partial<SecretsFile> | null;
    } catch (cause) {
      throw new SecretsFileInvalid({ path, cause });
    }
    if (
      typeof parsed !== "object" ||
      parsed === null ||
      parsed.version !== 1 ||
      typeof parsed.secrets !== "object" ||
      parsed.secrets === null
    ) {
      throw new SecretsFileInvalid({ path });
    }
    return new Map(Object.entries(parsed.secrets));
  };

  const write = async (secrets: Map<string, string>): Promise<void> => {
    const body: SecretsFile = { version: 1, secrets: Object.fromEntries(secrets) };
    const temporary = join(dir, `.${randomBytes(6).toString("hex")}.tmp`);
    // Made 0600 from the start, so the secrets are never readable by others, even for a moment.
    const file = await open(temporary, "wx", FILE_MODE);
    // Whatever fails on the way (a full disk, say), no copy of the secrets is left behind.
    try {
      try {
        await file.writeFile(`${JSON.stringify(body, null, 2)}\n`, "utf8");
        await file.sync();
      } finally {
        await file.close();
      }
      await chmod(temporary, FILE_MODE); // the umask may have narrowed it further, never widened
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  };

  return {
    get: (userKey) => serially(async () => (await read()).get(userKey)),
    set: (userKey, secret) =>
      serially(async () => {
        const secrets = await read();
        secrets.set(userKey, secret);
        await write(secrets);
      }),
    delete: (userKey) =>
      serially(async () => {
        const secrets = await read();
        if (!secrets.delete(userKey)) return;
        await write(secrets);
      }),
  };
};

/** Takes away any access others have to `path` (mode bits beyond its owner's). */
const narrow = async (path: string, mode: number): Promise<void> => {
  const { mode: now } = await stat(path);
  if ((now & 0o077) !== 0) await chmod(path, mode);
};
