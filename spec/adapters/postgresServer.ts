/**
 * A PostgreSQL 15 cluster for the specs: the throwaway cluster of
 * examples/crm/localPostgres.ts (Debian's binaries, a fresh data directory in
 * a temp dir, on a free loopback port, trust authentication, nothing synced
 * to disk, as the `postgres` user when root). Without the binaries the
 * Postgres specs are reported skipped, with the line that installs them.
 */
import {
  POSTGRES_BIN,
  POSTGRES_INSTALL,
  type PostgresServer,
  postgresMissing,
  startPostgres,
} from "../../examples/crm/localPostgres.ts";

export { POSTGRES_BIN, type PostgresServer, startPostgres };

/** Whether the Postgres specs can run here. */
export const havePostgres = postgresMissing === null;

/** The name a Postgres suite runs under, or why it is skipped and how to fix that. */
export const postgresSuite = (name: string): string =>
  postgresMissing === null
    ? name
    : `${name} (skipped: ${postgresMissing}; install it with: ${POSTGRES_INSTALL})`;

if (postgresMissing !== null)
  console.warn(
    `The Postgres specs are skipped: ${postgresMissing}. Install it with: ${POSTGRES_INSTALL}`,
  );
