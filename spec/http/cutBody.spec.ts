/** A client that leaves half-way through sending its body: the handler reading it is not left waiting. */
import { createServer } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { toNodeListener } from "elyra-assistant/http";
import { describe, expect, it } from "vitest";

describe("toNodeListener", () => {
  it("ends a body the client stopped sending in an error, so a reader settles", async () => {
    let settled: (outcome: string) => void = () => undefined;
    const outcome = new Promise<string>((resolve) => (settled = resolve));
    const server = createServer(
      toNodeListener(async (request) => {
        try {
          await request.text();
          settled("read");
        } catch {
          settled("errored");
        }
        return new Response(null, { status: 204 });
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const socket = connect(port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(
      'POST /x HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"text":',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    const result = await Promise.race([
      outcome,
      new Promise((resolve) => setTimeout(() => resolve("still waiting"), 2_000)),
    ]);
    expect(result).toBe("errored");
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
});
