/** Threads for the UI and React specs: one made up, and a user's threads held in memory behind the client's `threads`. */
import {
  type AssistantClient,
  type AssistantThreads,
  HostError,
  type ThreadInfo,
} from "elyra-assistant/ui";

export const MINUTE = 60_000;

/** A thread last used `ago` ms ago. */
export const thread = (id: string, title: string, ago: number, more: Partial<ThreadInfo> = {}) => ({
  id,
  title,
  createdAt: Date.now() - ago - MINUTE,
  lastAt: Date.now() - ago,
  preview: `The answer about ${title || "it"}.`,
  turns: 1,
  archived: false,
  ...more,
});

/** The user's threads in memory, in pages of `pageSize`, recording each request. */
export const memoryThreads = (all: ThreadInfo[], pageSize = 20) => {
  const asked: Array<readonly [string, unknown]> = [];
  let refuse: string | undefined;
  const check = (method: string, id?: string) => {
    asked.push([method, id]);
    if (refuse === method)
      throw new HostError({ status: 404, type: "threadNotFound", message: "no such conversation" });
  };
  const at = (id: string) => {
    const found = all.find((x) => x.id === id);
    if (found === undefined)
      throw new HostError({ status: 404, type: "threadNotFound", message: "no such conversation" });
    return found;
  };
  const threads: AssistantThreads = {
    list: async (query = {}) => {
      check("list", query.after);
      const mine = all
        .filter((x) => x.archived === (query.archived ?? false))
        .sort((a, b) => b.lastAt - a.lastAt);
      const from = query.after === undefined ? 0 : Number(query.after);
      const page = mine.slice(from, from + pageSize);
      return from + pageSize < mine.length
        ? { threads: page, next: String(from + pageSize) }
        : { threads: page };
    },
    search: async (text) => {
      check("search", text);
      const words = text.toLowerCase();
      return {
        threads: all
          .filter((x) => `${x.title} ${x.preview}`.toLowerCase().includes(words))
          .map((x) => ({ ...x, snippet: `…${x.preview}…` })),
      };
    },
    get: async (id) => {
      check("get", id);
      const found = at(id);
      return { ...found, title: found.title === "" ? "First question" : found.title };
    },
    rename: async (id, title) => {
      check("rename", id);
      Object.assign(at(id), { title });
    },
    archive: async (id, archived = true) => {
      check("archive", id);
      Object.assign(at(id), { archived });
    },
    delete: async (id) => {
      check("delete", id);
      at(id);
      all.splice(
        all.findIndex((x) => x.id === id),
        1,
      );
    },
  };
  return { threads, asked, refuse: (method: string | undefined) => (refuse = method) };
};

/** `client` with the threads of `memory` and a `switchThread` that makes ids `fresh1`, `fresh2`, …; `switched` records each call. */
export const withThreads = (client: AssistantClient, threads: AssistantThreads, first = "t1") => {
  let id = first;
  let made = 0;
  const switched: Array<string | undefined> = [];
  const threaded: AssistantClient = {
    ...client,
    get clientId() {
      return id;
    },
    switchThread: (to) => {
      switched.push(to);
      id = to ?? `fresh${++made}`;
      return id;
    },
    threads,
  };
  return { client: threaded, switched };
};
