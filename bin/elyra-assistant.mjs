#!/usr/bin/env node
// The command line, compiled (dist/cli/main.js). In this repository, run with
// `node --import tsx`, tsconfig.json's paths make "#cli" the TypeScript source.
const { main } = await import("#cli");
process.exitCode = await main(process.argv.slice(2));
// Done: an app module's open handles (a database, a timer) don't keep the process alive.
// Unref'd, so a process with nothing left open exits at once, output flushed.
setTimeout(() => process.exit(), 1000).unref();
