#!/usr/bin/env node
// The package ships TypeScript sources: tsx loads them, then the CLI runs.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
// Done: an app module's open handles (a database, a timer) don't keep the process alive.
// Unref'd, so a process with nothing left open exits at once, output flushed.
setTimeout(() => process.exit(), 1000).unref();
