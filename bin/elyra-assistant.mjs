#!/usr/bin/env node
// The package ships TypeScript sources: tsx loads them, then the CLI runs.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
