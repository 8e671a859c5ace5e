/**
 * The routes of a user's threads: their list, search, one thread, and its
 * rename, archive and erasure. Each names the signed-in user to the host,
 * which touches only their threads: another user's is the same 404 as one
 * that never was, and nothing of it is written or read.
 */
import type { Hono } from "hono";
import type { Host } from "../../actors/host/host.ts";
import type { ThreadEntry, ThreadHit } from "../../runtime/threads/threadIndex.ts";
import {
  ArchiveBody,
  RenameBody,
  ThreadBody,
  type ThreadFound,
  type ThreadInfo,
  ThreadSearchBody,
  ThreadsBody,
  type ThreadsResponse,
} from "./contract.ts";
import { bodyOf, type Env } from "./requests.ts";

/** A thread as the wire has it: without its owner's key or the seq it was written at. */
const infoOf = ({ owner: _owner, seq: _seq, ...info }: ThreadEntry): ThreadInfo => info;
const foundOf = (hit: ThreadHit): ThreadFound => ({ ...infoOf(hit), snippet: hit.snippet });

const noContent = () => new Response(null, { status: 204 });

/** Adds the thread routes to `api`. */
export const threadRoutes = (api: Hono<Env>, host: Host): void => {
  api.post("/threads", async (c) => {
    const body = await bodyOf(c.req.raw, ThreadsBody);
    const page = await host.threads.list({ user: c.get("user"), ...body });
    const answer: ThreadsResponse = {
      threads: page.threads.map(infoOf),
      ...(page.next === undefined ? {} : { next: page.next }),
    };
    return Response.json(answer);
  });

  api.post("/threads/search", async (c) => {
    const body = await bodyOf(c.req.raw, ThreadSearchBody);
    const found = await host.threads.search({ user: c.get("user"), ...body });
    const answer: ThreadsResponse<ThreadFound> = { threads: found.map(foundOf) };
    return Response.json(answer);
  });

  api.post("/threads/get", async (c) => {
    const { id } = await bodyOf(c.req.raw, ThreadBody);
    return Response.json(infoOf(await host.threads.get({ user: c.get("user"), id })));
  });

  api.post("/threads/rename", async (c) => {
    const { id, title } = await bodyOf(c.req.raw, RenameBody);
    await host.threads.rename({ user: c.get("user"), id, title });
    return noContent();
  });

  api.post("/threads/archive", async (c) => {
    const { id, archived } = await bodyOf(c.req.raw, ArchiveBody);
    await host.threads.archive({
      user: c.get("user"),
      id,
      ...(archived === undefined ? {} : { archived }),
    });
    return noContent();
  });

  api.post("/threads/delete", async (c) => {
    const { id } = await bodyOf(c.req.raw, ThreadBody);
    await host.threads.delete({ user: c.get("user"), id });
    return noContent();
  });
};
