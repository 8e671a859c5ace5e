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
 *
 * @example
 * ```ts
 * const secrets = fileSecrets("/var/lib/crm/assistant/secrets.json"); // holds "not json"
 * await secrets.get("id:1").catch((error) => {
 *   if (error instanceof SecretsFileInvalid) console.error(error.message); // move the file aside
 * });
 * ```
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

/**
 * The directory the secrets file is in can be written by others (group or
 * other write, without the sticky bit), so they could put a file of their
 * own in place of the secrets file. Every `get`, `set` and `delete` rejects
 * with it; the directory is left as it is, never narrowed (it is not this
 * store's to change).
 *
 * @example
 * ```ts
 * const secrets = fileSecrets("/srv/shared/secrets.json"); // /srv/shared is 0777
 * await secrets.get("id:1").catch((error) => {
 *   if (error instanceof SecretsDirectoryUnsafe) console.error(error.message); // chmod go-w /srv/shared
 * });
 * ```
 */
export class SecretsDirectoryUnsafe extends Data.TaggedError("SecretsDirectoryUnsafe")<{
  /** The directory. */
  readonly path: string;
  /** Its mode as found: the permission and special bits (`0o777`, `0o2775`, …). */
  readonly mode: number;
}> {
  override get message(): string {
    const mode = this.mode.toString(8).padStart(4, "0");
    return `elyra-assistant/secrets: ${this.path} (mode ${mode}) can be written by others, who could replace the secrets file in it; remove their write access (chmod go-w) or set the sticky bit`;
  }
}

/** What the file holds. */
interface SecretsFile {
  readonly version: 1;
  readonly secrets: Readonly<Record<string, string>>;
}

/**
 * Secrets kept in a JSON file at `path`, mode 0600. A missing directory is
 * made, mode 0700. A directory that is there is never changed: one others can
 * write into without the sticky bit is refused ({@link SecretsDirectoryUnsafe}),
 * as they could replace the file; one others can only read (0755) or a sticky
 * one (1777) is used as it is. A file found readable by others is narrowed to
 * its owner before it is read. Changes from this process are made one at a
 * time; the file is read afresh for each, so an edit by hand is seen.
 *
 * @example
 * ```ts
 * import { modelSource } from "elyra-assistant/anthropic";
 *
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
    // Made 0700 (the umask can only narrow it), or there before us: then checked, never changed.
    const made = await mkdir(dir, { recursive: true, mode: DIR_MODE });
    if (made === undefined) await refuseIfOthersCanWrite(dir);
    let text: string;
    try {
      await narrowToOwner(path);
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

/** Group and other write. */
const OTHERS_WRITE = 0o022;
/** The sticky bit: in such a directory, only a file's owner may rename or remove it. */
const STICKY = 0o1000;
/** The permission bits and the special ones (setuid, setgid, sticky): what `chmod` sets. */
const MODE_BITS = 0o7777;

/** Rejects when others could replace a file in `dir`: they can write there, and it is not sticky. */
const refuseIfOthersCanWrite = async (dir: string): Promise<void> => {
  const mode = (await stat(dir)).mode & MODE_BITS;
  if ((mode & OTHERS_WRITE) !== 0 && (mode & STICKY) === 0)
    throw new SecretsDirectoryUnsafe({ path: dir, mode });
};

/** Takes away any access others have to the file at `path`; its owner's bits and special bits stay. */
const narrowToOwner = async (path: string): Promise<void> => {
  const mode = (await stat(path)).mode & MODE_BITS;
  if ((mode & 0o077) !== 0) await chmod(path, mode & ~0o077);
};
