import { modelSource } from "elyra-assistant/anthropic";
import { fileSecrets } from "elyra-assistant/secrets";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Where each user's steps go, in order: your backend proxy (this host then
 * holds no key), else the user's own key, else `ANTHROPIC_API_KEY`.
 */
export const modelFrom = (env: Env) => {
  // Users' own keys, in a file outside the web root: the panel's ⚙ Settings.
  const secrets = env.SECRETS_FILE === undefined ? undefined : fileSecrets(env.SECRETS_FILE);
  const source = modelSource({
    ...(env.CLAUDE_PROXY_URL === undefined
      ? {}
      : { backend: { baseURL: env.CLAUDE_PROXY_URL, authToken: env.CLAUDE_PROXY_TOKEN ?? "" } }),
    ...(secrets === undefined ? {} : { secrets }),
    env,
  });
  return { source, secrets };
};
