/** The secrets port: the in-memory twin and the file store keep, replace and forget alike. */
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memorySecrets, type Secrets } from "elyra-assistant";
import { fileSecrets, SecretsDirectoryUnsafe, SecretsFileInvalid } from "elyra-assistant/secrets";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "elyra-secrets-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;
/** The permission bits and the special ones (setuid, setgid, sticky). */
const fullModeOf = async (path: string) => (await stat(path)).mode & 0o7777;

describe.each([
  ["memorySecrets", () => memorySecrets()],
  ["fileSecrets", () => fileSecrets(join(dir, "keys", "secrets.json"))],
] as const)("%s", (_, make: () => Secrets) => {
  it("keeps one secret per user, replaces it, and forgets it", async () => {
    const secrets = make();
    expect(await secrets.get("id:1")).toBeUndefined();
    await secrets.set("id:1", "sk-ant-one");
    await secrets.set("id:2", "sk-ant-two");
    expect(await secrets.get("id:1")).toBe("sk-ant-one");
    await secrets.set("id:1", "sk-ant-uno");
    expect(await secrets.get("id:1")).toBe("sk-ant-uno");
    await secrets.delete("id:1");
    expect(await secrets.get("id:1")).toBeUndefined();
    expect(await secrets.get("id:2")).toBe("sk-ant-two");
    await secrets.delete("id:1"); // forgetting twice does nothing
  });

  it("a user key named like an object's own property is a key like any other", async () => {
    const secrets = make();
    await secrets.set("__proto__", "sk-ant-proto");
    await secrets.set("constructor", "sk-ant-ctor");
    expect(await secrets.get("__proto__")).toBe("sk-ant-proto");
    expect(await secrets.get("constructor")).toBe("sk-ant-ctor");
    expect(await secrets.get("toString")).toBeUndefined();
  });

  it("changes made at once all land", async () => {
    const secrets = make();
    await Promise.all(Array.from({ length: 20 }, (_, i) => secrets.set(`id:${i}`, `sk-ant-${i}`)));
    for (let i = 0; i < 20; i++) expect(await secrets.get(`id:${i}`)).toBe(`sk-ant-${i}`);
  });
});

describe("fileSecrets on disk", () => {
  const path = () => join(dir, "keys", "secrets.json");

  it("makes the directory 0700 and the file 0600", async () => {
    await fileSecrets(path()).set("id:1", "sk-ant-one");
    expect(await modeOf(join(dir, "keys"))).toBe(0o700);
    expect(await modeOf(path())).toBe(0o600);
  });

  it("narrows a file found readable by others to 0600, and leaves a readable directory as it is", async () => {
    const secrets = fileSecrets(path());
    await secrets.set("id:1", "sk-ant-one");
    await chmod(path(), 0o644);
    await chmod(join(dir, "keys"), 0o755);
    expect(await secrets.get("id:1")).toBe("sk-ant-one");
    expect(await modeOf(path())).toBe(0o600);
    expect(await fullModeOf(join(dir, "keys"))).toBe(0o755);
  });

  it("writes a whole new file and renames it over the old: no temporary file is left", async () => {
    const secrets = fileSecrets(path());
    await secrets.set("id:1", "sk-ant-one");
    const before = (await stat(path())).ino;
    await secrets.set("id:2", "sk-ant-two");
    // A rename puts a new inode at the path; writing in place would keep the old one.
    expect((await stat(path())).ino).not.toBe(before);
    expect(await readdir(join(dir, "keys"))).toEqual(["secrets.json"]);
    expect(JSON.parse(await readFile(path(), "utf8"))).toEqual({
      version: 1,
      secrets: { "id:1": "sk-ant-one", "id:2": "sk-ant-two" },
    });
  });

  it("forgetting removes the secret from the file, and a second store reads what the first wrote", async () => {
    await fileSecrets(path()).set("id:1", "sk-ant-one");
    await fileSecrets(path()).set("id:2", "sk-ant-two");
    await fileSecrets(path()).delete("id:1");
    const text = await readFile(path(), "utf8");
    expect(text).not.toContain("sk-ant-one");
    expect(await fileSecrets(path()).get("id:2")).toBe("sk-ant-two");
  });

  it("a file it cannot read is refused, never written over", async () => {
    const secrets = fileSecrets(path());
    await secrets.set("id:1", "sk-ant-one");
    await writeFile(path(), "not json at all", { mode: 0o600 });
    await expect(secrets.set("id:2", "sk-ant-two")).rejects.toThrow();
    await writeFile(path(), JSON.stringify({ version: 2, keys: {} }), { mode: 0o600 });
    await expect(secrets.get("id:1")).rejects.toThrow(/not a secrets file of version 1/);
    expect(await readFile(path(), "utf8")).toBe(JSON.stringify({ version: 2, keys: {} }));
  });

  it("a file that is not a secrets file of version 1 rejects with SecretsFileInvalid, naming the path", async () => {
    const secrets = fileSecrets(path());
    await secrets.set("id:0", "sk-ant-zero");
    for (const text of ["not json at all", "null", "[]", '{"version":1,"secrets":null}']) {
      await writeFile(path(), text, { mode: 0o600 });
      for (const attempt of [() => secrets.get("id:1"), () => secrets.set("id:1", "sk-ant-one")]) {
        const error = await attempt().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(SecretsFileInvalid);
        expect((error as SecretsFileInvalid).message).toBe(
          `elyra-assistant/secrets: ${path()} is not a secrets file of version 1`,
        );
      }
      expect(await readFile(path(), "utf8")).toBe(text);
    }
  });
});

describe("fileSecrets and a directory it did not make", () => {
  const keys = () => join(dir, "keys");
  const path = () => join(keys(), "secrets.json");
  /** The directory made beforehand, as an operator would, with exactly `mode` (chmod: no umask). */
  const given = async (mode: number) => {
    await mkdir(keys(), { recursive: true });
    await chmod(keys(), mode);
  };
  /** Whether others can put a file in place of the secrets file: write without the sticky bit. */
  const othersCanReplace = (mode: number) => (mode & 0o022) !== 0 && (mode & 0o1000) === 0;
  const outcome = (attempt: Promise<unknown>) =>
    attempt.then(
      () => "done",
      (error: unknown) => error,
    );

  it("keeps, reads and forgets in a 0755 directory, and never changes its mode", async () => {
    await given(0o755);
    const secrets = fileSecrets(path());
    await secrets.set("id:1", "sk-ant-one");
    expect(await secrets.get("id:1")).toBe("sk-ant-one");
    await secrets.delete("id:1");
    expect(await fullModeOf(keys())).toBe(0o755);
    expect(await modeOf(path())).toBe(0o600);
  });

  it("a sticky 1777 directory keeps its sticky bit: others can write there, but not replace our file", async () => {
    await given(0o1777);
    const secrets = fileSecrets(path());
    await secrets.set("id:1", "sk-ant-one");
    expect(await secrets.get("id:1")).toBe("sk-ant-one");
    expect(await fullModeOf(keys())).toBe(0o1777);
    expect(await modeOf(path())).toBe(0o600);
  });

  it("a directory others can write into, without the sticky bit, is refused with SecretsDirectoryUnsafe; nothing is changed or written", async () => {
    for (const mode of [0o777, 0o775, 0o770, 0o757, 0o722, 0o2775]) {
      await rm(keys(), { recursive: true, force: true });
      await given(mode);
      const secrets = fileSecrets(path());
      for (const attempt of [
        () => secrets.get("id:1"),
        () => secrets.set("id:1", "sk-ant-one"),
        () => secrets.delete("id:1"),
      ]) {
        const error = await outcome(attempt());
        expect(error).toBeInstanceOf(SecretsDirectoryUnsafe);
        expect(error).toMatchObject({ _tag: "SecretsDirectoryUnsafe", path: keys(), mode });
        expect(error instanceof SecretsDirectoryUnsafe && error.message).toBe(
          `elyra-assistant/secrets: ${keys()} (mode ${mode.toString(8).padStart(4, "0")}) can be written by others, who could replace the secrets file in it; remove their write access (chmod go-w) or set the sticky bit`,
        );
      }
      expect(await fullModeOf(keys())).toBe(mode);
      expect(await readdir(keys())).toEqual([]);
    }
  });

  it("for every mode of the directory, its mode is left as it was, and it is refused exactly when others can replace the file", async () => {
    // Every setting of the special bits and of group's and others' bits: 2^9 modes, the owner's rwx.
    for (let bits = 0; bits < 0o1000; bits++) {
      const mode = ((bits & 0o700) << 3) | 0o700 | (bits & 0o077);
      await rm(keys(), { recursive: true, force: true });
      await given(mode);
      const error = await outcome(fileSecrets(path()).set("id:1", "sk-ant-one"));
      if (othersCanReplace(mode))
        expect(error, mode.toString(8)).toBeInstanceOf(SecretsDirectoryUnsafe);
      else expect(error, mode.toString(8)).toBe("done");
      expect(await fullModeOf(keys()), mode.toString(8)).toBe(mode);
    }
  });
});
