/**
 * The confirmation answer's result is one contract (issue 30, item 3): the
 * schema in runtime/calls/answerResult.ts, whose type the broker, the host
 * messages and the browser's wire all name.
 */
import { Schema } from "effect";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { Reply } from "../../src/actors/cluster/messages.ts";
import type { AnswerResult as BrokerAnswerResult } from "../../src/actors/turn/confirmationBroker.ts";
import type { ConfirmResult } from "../../src/adapters/web/wire.ts";
import { ANSWER_TAGS, AnswerResult } from "../../src/runtime/calls/answerResult.ts";

/** The shape the three copies had before they were one. */
type Written =
  | {
      readonly _tag: "Answered";
      readonly answer: "accepted" | "declined" | "timedOut";
      readonly edited?: true;
    }
  | {
      readonly _tag: "InvalidEdit";
      readonly issues: ReadonlyArray<{ readonly path: string; readonly message: string }>;
    }
  | { readonly _tag: "UnknownConfirmation" }
  | { readonly _tag: "OtherWindow" }
  | { readonly _tag: "Mismatch" };

describe("AnswerResult, one contract", () => {
  it("the broker's, the host replies' and the wire's are the schema's type, the shape it had", () => {
    expectTypeOf<AnswerResult>().toEqualTypeOf<Written>();
    expectTypeOf<BrokerAnswerResult>().toEqualTypeOf<AnswerResult>();
    expectTypeOf<ConfirmResult>().toEqualTypeOf<AnswerResult>();
    expectTypeOf<Extract<Reply, { _tag: AnswerResult["_tag"] }>>().toEqualTypeOf<AnswerResult>();
  });

  it("its tags are the five a confirmation's reply bears", () => {
    expect([...ANSWER_TAGS].sort()).toEqual(
      ["Answered", "InvalidEdit", "Mismatch", "OtherWindow", "UnknownConfirmation"].sort(),
    );
  });

  it("the schema takes each result and refuses what is not one", () => {
    const is = Schema.is(AnswerResult);
    expect(is({ _tag: "Answered", answer: "accepted", edited: true })).toBe(true);
    expect(is({ _tag: "Answered", answer: "timedOut" })).toBe(true);
    expect(is({ _tag: "InvalidEdit", issues: [{ path: "amount", message: "too big" }] })).toBe(
      true,
    );
    expect(is({ _tag: "Mismatch" })).toBe(true);
    expect(is({ _tag: "Answered", answer: "maybe" })).toBe(false);
    expect(is({ _tag: "NotHolder" })).toBe(false);
  });
});
