/**
 * `npm start`: the example CRM with its assistant, on PORT (3000 unless set),
 * its data in CRM_DATA_DIR (examples/crm/.data/ unless set).
 */
import { startCrm } from "./server.ts";

const port = process.env.PORT === undefined ? 3000 : Number(process.env.PORT);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`PORT must be a port number, not ${JSON.stringify(process.env.PORT)}`);
  process.exit(1);
}

const crm = await startCrm({
  port,
  ...(process.env.CRM_DATA_DIR ? { dataDir: process.env.CRM_DATA_DIR } : {}),
  ...(process.env.HOST ? { hostname: process.env.HOST } : {}),
});
console.log(`Elyra CRM: ${crm.url}`);
console.log(`Model: ${crm.model}`);

const stop = () => {
  void crm.close().then(() => process.exit(0));
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
