/**
 * `npm start`: the example CRM with its assistant, on PORT (3000 unless set),
 * its data in CRM_DATA_DIR (examples/crm/.data/ unless set). DATABASE_URL
 * puts the assistant's log in PostgreSQL; ASSISTANT_TOKEN and INSTANCE are
 * for several instances behind one balancer (`npm run cluster`): the token
 * they share, and the name each sends as `x-elyra-instance`. ELYRA_INSPECT=1
 * sends every actor of the assistant to Stately's inspector (inspector.ts).
 */
import { inspectorFromEnv } from "./inspector.ts";
import { startCrm } from "./server.ts";
import { stopWhenAsked } from "./stopping.ts";

const port = process.env.PORT === undefined ? 3000 : Number(process.env.PORT);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`PORT must be a port number, not ${JSON.stringify(process.env.PORT)}`);
  process.exit(1);
}

/** A variable that is set and not blank. */
const env = (name: string): string | undefined => {
  const value = process.env[name];
  return value === undefined || value.trim() === "" ? undefined : value;
};

const databaseUrl = env("DATABASE_URL");
const token = env("ASSISTANT_TOKEN");
const instance = env("INSTANCE");
const dataDir = env("CRM_DATA_DIR");
const hostname = env("HOST");

const inspecting = await inspectorFromEnv(process.env).catch((error: unknown) => {
  console.error(`ELYRA_INSPECT: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

const starting = startCrm({
  port,
  ...(inspecting === undefined ? {} : { inspect: inspecting.inspect }),
  ...(dataDir === undefined ? {} : { dataDir }),
  ...(hostname === undefined ? {} : { hostname }),
  ...(databaseUrl === undefined ? {} : { databaseUrl }),
  ...(token === undefined ? {} : { token }),
  ...(instance === undefined ? {} : { instance }),
}).catch((error: unknown) => {
  if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
    console.error(
      `Elyra CRM did not start: port ${port} is taken (another server, or an Elyra CRM already running). ` +
        `Pick another one: PORT=${port === 65_535 ? 3001 : port + 1} npm start, or PORT=0 npm start for any free port.`,
    );
    process.exit(1);
  }
  // postgresStore's messages name the server as host:port/database, never the password.
  const why = error instanceof Error ? error.message : String(error);
  console.error(
    `Elyra CRM did not start${databaseUrl === undefined ? "" : " (check DATABASE_URL)"}: ${why}`,
  );
  process.exit(1);
});
// Asked to stop while it starts, it stops once it has started (its databases closed cleanly).
stopWhenAsked(async () => {
  await (await starting).close();
  inspecting?.close();
}, "Elyra CRM stopped.");
const crm = await starting;
// `npm run cluster` reads this line to learn each instance's URL.
console.log(`Elyra CRM: ${crm.url}${instance === undefined ? "" : ` (instance ${instance})`}`);
console.log(`Model: ${crm.model}`);
console.log(`Assistant log: ${crm.log}`);
if (inspecting !== undefined)
  console.log(
    `Inspector: the assistant's actors go to @statelyai/inspect's relay on port ${inspecting.port} ` +
      "(every interface: whoever reaches it sees the conversations). " +
      `Open ${inspecting.url} in a browser on this machine; it frames Stately's inspector ` +
      "from stately.ai, so that browser needs the internet.",
  );
