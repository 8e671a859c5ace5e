/**
 * Idle windows (the targets in docs/architecture.md): the heap one open
 * conversation costs while it waits, at 1 000 and 10 000 windows in one
 * process. Baseline: the same process before the windows were opened (the
 * host, the app and the modules loaded). Target: ≤ 20 KB per idle window.
 *
 * Two kinds of idle window: one just opened (its actor spawned, nothing said),
 * and one after a short answered turn, its log kept in the memory store.
 */
import v8 from "node:v8";
import vm from "node:vm";
import type { Model } from "elyra-assistant";
import { createApp } from "elyra-assistant";
import { memoryStore, responseOf } from "elyra-assistant/testing";
import { crmCommands } from "../examples/crm/commands.ts";
import { createHost } from "../src/actors/host.ts";
import type { Benchmark, BenchResult } from "./report.ts";

const TARGET_KB = 20;

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

const heapAfterGc = () => {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
};

const measure = async (windows: number, turn: boolean) => {
  const app = createApp({
    commands: crmCommands(),
    userAbilities: (u) => (u as { abilities: string[] }).abilities,
    assistant: { allow: ["customers.*", "invoices.view"], confirm: ["customers.delete"] },
  });
  // A model that keeps nothing (a fake model records every request, which is not the window's cost).
  const answer = responseOf({ text: "There are three overdue invoices." });
  const model: Model = { step: async () => answer };
  const host = createHost(app, { model, store: memoryStore() });
  const user = { name: "Ada", abilities: ["customers.view", "invoices.view"] };
  const before = heapAfterGc();
  const opened = [];
  for (let i = 0; i < windows; i++) {
    const w = host.window(`client-${i}`, { user });
    opened.push(w);
    if (turn) await w.prompt({ text: "What is overdue?", route: "/invoices" });
    else await w.ready;
  }
  await Promise.all(opened.map((w) => w.settled()));
  const after = heapAfterGc();
  const perWindowKb = (after - before) / windows / 1024;
  await host.close();
  return { beforeMb: before / 2 ** 20, afterMb: after / 2 ** 20, perWindowKb };
};

const run = async (): Promise<BenchResult> => {
  const rows = [];
  for (const turn of [false, true]) {
    for (const windows of [1_000, 10_000]) {
      const { beforeMb, afterMb, perWindowKb } = await measure(windows, turn);
      rows.push({
        case: `${windows.toLocaleString("en-US")} windows, ${turn ? "after one turn" : "just opened"}`,
        baselineHeapMb: Math.round(beforeMb * 10) / 10,
        heapMb: Math.round(afterMb * 10) / 10,
        perWindowKb: Math.round(perWindowKb * 100) / 100,
        pass: perWindowKb <= TARGET_KB,
      });
    }
  }
  return {
    title: "idle windows (1 000 and 10 000 in one process)",
    baseline: "the same process's heap before the windows were opened",
    target: `≤ ${TARGET_KB} KB per idle window`,
    pass: rows.every((r) => r.pass),
    headline: "perWindowKb",
    columns: ["case", "baselineHeapMb", "heapMb", "perWindowKb", "pass"],
    rows,
    notes: [
      "heapUsed after three forced collections, before and after opening the windows.",
      "An idle window: its conversation actor, its confirmation broker, its log's projections; " +
        "after one turn its log (a memory store) holds the turn's 6 events.",
    ],
  };
};

export const benchmark: Benchmark = { name: "idleWindows", run };
