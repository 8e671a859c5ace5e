#!/usr/bin/env node
// The command line, compiled (dist/cli/main.js). In this repository, run under
// the package's own condition (node --conditions=@elyra-assistant/source
// --import tsx), "#cli" is the TypeScript source instead.
const { main } = await import("#cli");
process.exitCode = await main(process.argv.slice(2));
// Done: an app module's open handles (a database, a timer) don't keep the process alive.
// Unref'd, so a process with nothing left open exits at once, output flushed.
setTimeout(() => process.exit(), 1000).unref();
