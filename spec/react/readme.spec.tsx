// @vitest-environment happy-dom
/** README.md's "Use it from React" sample (./examples/readme.tsx), run as written. */
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, expect, it } from "vitest";
import { answeredTurn, fakeClient, numbered } from "../ui/fixtures.ts";
import { App } from "./examples/readme.tsx";

afterEach(cleanup);

it("asks, shows the answer as it streams, and stops", async () => {
  const fake = fakeClient();
  render(<App client={fake.client} />);
  await act(async () => {
    fireEvent.click(screen.getByRole("button", { name: "Ask" }));
  });
  expect(fake.calls).toEqual([{ method: "prompt", args: ["Which invoices are overdue?", "/"] }]);

  const [started, step, first, second] = numbered(
    answeredTurn(1, "Which invoices are overdue?", ["Invoice 7 ", "is overdue."]),
  );
  act(() => fake.emit(started!, step!, first!));
  expect(screen.getByText("Invoice 7")).toBeTruthy();
  act(() => fake.emit(second!));
  expect(screen.getByText("Invoice 7 is overdue.")).toBeTruthy();

  await act(async () => {
    fireEvent.click(screen.getByRole("button", { name: "Stop" }));
  });
  expect(fake.calls.at(-1)).toEqual({ method: "stop", args: [] });
  act(() =>
    fake.emit(...numbered([{ _tag: "Stopped", turn: 1, partial: "Invoice 7 is overdue." }], 5)),
  );
  expect(screen.getByRole("button", { name: "Ask" })).toBeTruthy();
});
