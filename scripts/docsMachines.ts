/**
 * `npm run docs:machines`: writes each machine's JSON into docs/machines/ and
 * its Mermaid diagram into docs/architecture.md, between the markers
 * `<!-- machine:name -->` and `<!-- /machine:name -->`. A spec fails when
 * either is not what the machines say.
 */
import { execFileSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { MACHINES, machineFiles } from "../src/cli/exportMachines.ts";
import { withDiagrams } from "../src/cli/machineDiagram.ts";

const root = join(import.meta.dirname, "..");
for (const { file, json } of machineFiles())
  await writeFile(join(root, "docs/machines", file), json);
const architecture = join(root, "docs/architecture.md");
const text = await readFile(architecture, "utf8");
await writeFile(architecture, withDiagrams(text, MACHINES));
// Formatted as `npm run lint` wants them (the spec compares the JSON, not its spacing).
execFileSync("npx", ["biome", "format", "--write", "docs/machines", "docs/architecture.md"], {
  cwd: root,
  stdio: "ignore",
});
console.log(`wrote docs/machines/*.json and the diagrams of ${Object.keys(MACHINES).join(", ")}`);
