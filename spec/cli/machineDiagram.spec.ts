/**
 * The machines' diagrams: drawn from the machines, every state and every
 * transition in them, and the ones in docs/architecture.md (and the JSON in
 * docs/machines/) exactly what the machines say today.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type AnyStateMachine, type AnyStateNode, createMachine } from "xstate";
import { MACHINES, machineFiles } from "../../src/cli/exportMachines.ts";
import { diagramBlock, machineDiagram, withDiagrams } from "../../src/cli/machineDiagram.ts";

const root = join(import.meta.dirname, "../..");
const architecture = readFileSync(join(root, "docs/architecture.md"), "utf8");

const nodesOf = (node: AnyStateNode): AnyStateNode[] => [
  node,
  ...Object.values(node.states).flatMap(nodesOf),
];

/** Edges the diagram should have, counted from XState's resolved machine, not its config. */
const edgesOf = (machine: AnyStateMachine): number => {
  const count = (node: AnyStateNode) =>
    [...node.transitions.values(), node.always ?? []]
      .flat()
      .reduce((sum, t) => sum + Math.max(1, t.target?.length ?? 0), 0);
  const topLevel = Object.keys(machine.root.states).length;
  return (
    nodesOf(machine.root)
      .slice(1)
      .reduce((sum, node) => sum + count(node), 0) +
    count(machine.root) * topLevel
  );
};

describe("machine diagrams", () => {
  it("draws a machine's states and labelled transitions", () => {
    expect(machineDiagram(MACHINES.coalescer as AnyStateMachine)).toMatchInlineSnapshot(`
      "stateDiagram-v2
        [*] --> quiet
        quiet --> streaming: TEXT / openGathering
        streaming --> streaming: FLUSH / flush
        streaming --> quiet: QUIET / flush, closeGathering
      "
    `);
  });

  it("draws every state and every transition of every machine", () => {
    for (const [name, machine] of Object.entries(MACHINES)) {
      const diagram = machineDiagram(machine);
      for (const node of nodesOf(machine.root).slice(1))
        expect(diagram, `${name}: ${node.path.join(".")}`).toContain(node.path.join("_"));
      const edges = diagram.split("\n").filter((l) => l.includes(" --> ") && !l.includes("[*]"));
      expect(edges.length, name).toBe(edgesOf(machine));
    }
  });

  it("counts a transition the diagram leaves out", () => {
    const machine = createMachine({
      id: "m",
      initial: "a",
      states: { a: { on: { GO: "b", STAY: {} } }, b: { after: { 10: "a" } } },
    });
    const diagram = machineDiagram(machine);
    expect(diagram.split("\n").filter((l) => l.includes(" --> ") && !l.includes("[*]"))).toEqual([
      "  a --> b: GO",
      "  a --> a: STAY",
      "  b --> a: after 10",
    ]);
    expect(edgesOf(machine)).toBe(3);
  });

  it("docs/architecture.md holds each machine's diagram as the machine draws it today", () => {
    for (const [name, machine] of Object.entries(MACHINES))
      expect(architecture, name).toContain(diagramBlock(name, machine));
    expect(withDiagrams(architecture, MACHINES)).toBe(architecture);
  });

  it("redraws a stale block between its markers and leaves the rest", () => {
    const stale = "# A\n\n<!-- machine:coalescer -->\nold\n<!-- /machine:coalescer -->\n\nafter\n";
    const drawn = withDiagrams(stale, MACHINES);
    expect(drawn).toBe(
      `# A\n\n${diagramBlock("coalescer", MACHINES.coalescer as AnyStateMachine)}\n\nafter\n`,
    );
    expect(withDiagrams("no markers", MACHINES)).toBe("no markers");
  });

  it("docs/machines/ holds each machine's JSON as export-machines writes it today", () => {
    for (const { file, json } of machineFiles())
      expect(JSON.parse(readFileSync(join(root, "docs/machines", file), "utf8")), file).toEqual(
        JSON.parse(json),
      );
  });
});
