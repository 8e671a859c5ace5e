/**
 * A route is its plain path only (issue 29, item 19): a percent-encoded
 * spelling of it (`/%5F%5Fassistant/tools`, `/__assistant/%74ools`) is not
 * found, so an app that guards the literal prefix in front of the handler
 * guards every way in. Dot segments are resolved by the URL parser before any
 * handler sees the request (docs/backend.md §8 says what a guard should read).
 */
import { describe, expect, it } from "vitest";
import { setup } from "./fixture.ts";

describe("encoded paths", () => {
  it("the plain route answers; its encoded spellings are not found", async () => {
    const t = setup();
    const plain = t.request("tools");
    expect((await t.handle(plain)).status).toBe(200);
    for (const path of ["/%5F%5Fassistant/tools", "/__assistant/%74ools", "/%5f_assistant/tools"]) {
      const response = await t.handle(
        new Request(`http://app.test${path}`, { method: "POST", headers: plain.headers }),
      );
      expect(response.status, path).toBe(404);
    }
  });
});
