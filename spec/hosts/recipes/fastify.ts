import { BASE_PATH, type FetchHandler, toNodeListener } from "elyra-assistant/http";
import type { FastifyPluginAsync } from "fastify";

/**
 * The assistant's routes as a Fastify 5 plugin. In its scope (and only
 * there) the body is left unread for the handler, and each reply is
 * hijacked: the handler answers on Node's own request and response, and
 * writes event streams as they come.
 *
 * @example
 * ```ts
 * const fastify = Fastify();
 * await fastify.register(assistantRoutes(assistantHttp(host, { token, authenticate })));
 * ```
 */
export const assistantRoutes =
  (handle: FetchHandler, basePath = BASE_PATH): FastifyPluginAsync =>
  async (routes) => {
    const assistant = toNodeListener(handle);
    routes.removeAllContentTypeParsers();
    routes.addContentTypeParser("*", (_request, _body, done) => done(null));
    routes.all(`${basePath}/*`, (request, reply) => {
      reply.hijack();
      return assistant(request.raw, reply.raw);
    });
  };
