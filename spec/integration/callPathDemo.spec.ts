/** `npm run demo`: the scripted call-path demo runs and says what it should. */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { SOURCE_NODE_ARGS } from "../fixtures/sourceNode.ts";

describe("npm run demo: the call-path demo", () => {
  it("walks the call path and tells the model the documented sentences", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [...SOURCE_NODE_ARGS, "examples/demo/callPath.ts"],
      {
        cwd: new URL("../..", import.meta.url).pathname,
        timeout: 60_000,
      },
    );
    expect(stdout).toContain(
      "Offered to Ada's assistant: customers_show, customers_update, invoices_index",
    );
    expect(stdout).toContain("unknown tool: __proto__");
    expect(stdout).toContain("email: must be a valid email");
    expect(stdout).toContain("activity: finished customers_update → /customers/42");
    expect(stdout).toContain("the user may not do this: it takes customers.delete");
    expect(stdout).toContain("call it directly, so the user can confirm it");
  });
});
