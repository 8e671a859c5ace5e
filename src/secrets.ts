/**
 * elyra-assistant/secrets: where users' own API keys are kept, in a file
 * only the host's user can read. The port and its in-memory twin,
 * `memorySecrets`, are in the main entry.
 *
 * @packageDocumentation
 */

export {
  fileSecrets,
  SecretsDirectoryUnsafe,
  SecretsFileInvalid,
} from "./adapters/secrets/fileSecrets.ts";
export type { Secrets } from "./runtime/ports/secrets.ts";
