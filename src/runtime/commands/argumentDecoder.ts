/**
 * Decoding a command's untrusted arguments at a cost that does not grow with
 * how many of them are wrong. Arguments nested deeper than
 * {@link MAX_JSON_DEPTH} are refused before any decoding. One pass decides,
 * stopping at the first problem. Only a refusal is checked again, to report
 * its problems, with the parts whose count the input decides (the elements of
 * an array, the values of a record, the properties a struct lacks) behind
 * gates: once enough of them failed for {@link issuesOf} to be capped, the
 * rest are not checked, only marked.
 */
import { SchemaAST as AST, Either, ParseResult, Predicate, Schema } from "effect";
import { MAX_JSON_DEPTH, valueNestedDeeper } from "../json.ts";
import { MAX_ISSUES, NOT_CHECKED, reportOf } from "./issues.ts";

const FIRST = { errors: "first", onExcessProperty: "error" } as const;
const ALL = { errors: "all", onExcessProperty: "error" } as const;

/** The report under way: failures counted (innermost only), parts left unchecked, and the limit. */
interface Budget {
  failures: number;
  skipped: number;
  limit: number;
}

/** What a value nested too deep is told, under `arguments`. */
export const TOO_DEEP = `nested deeper than ${MAX_JSON_DEPTH} levels`;

/**
 * A decoder of untrusted arguments by `schema`; properties the schema lacks
 * are errors. A value nested deeper than {@link MAX_JSON_DEPTH} levels (the
 * outermost counted) is refused undecoded. A refusal's `ParseError` holds the
 * problems a full check finds first, enough for {@link issuesOf} to tell
 * them, its cap and one more; the parts not checked are marked, and nothing is
 * told past the first mark.
 */
export const argumentDecoder = <A>(
  schema: Schema.Schema<A, unknown, never>,
): ((input: unknown) => Either.Either<A, ParseResult.ParseError>) => {
  const decide = Schema.decodeUnknownEither(schema, FIRST);
  const budget: Budget = { failures: 0, skipped: 0, limit: 0 };
  // Made at the first refusal: most commands are never refused.
  let report: ((input: unknown) => Either.Either<unknown, ParseResult.ParseError>) | undefined;
  return (input) => {
    try {
      return decideOrReport(input);
    } catch (error) {
      // A check of the app's schema that throws (a `filter` calling `toISOString` on an invalid
      // date, say) refuses these arguments, naming the throw, rather than failing the turn.
      const issue = new ParseResult.Type(schema.ast, input, checkThrew(error));
      return Either.left(new ParseResult.ParseError({ issue }));
    }
  };
  function decideOrReport(input: unknown): Either.Either<A, ParseResult.ParseError> {
    if (valueNestedDeeper(input, MAX_JSON_DEPTH)) {
      const issue = new ParseResult.Type(schema.ast, input, TOO_DEEP);
      return Either.left(new ParseResult.ParseError({ issue }));
    }
    const decided = decide(input);
    if (Either.isRight(decided)) return decided;
    report ??= Schema.decodeUnknownEither(Schema.make(gated(schema.ast, budget)), ALL);
    // Failures a union forgives (another member matched) still count: then the limit doubles.
    for (let limit = MAX_ISSUES + 1; ; limit *= 2) {
      budget.failures = 0;
      budget.skipped = 0;
      budget.limit = limit;
      const reported = report(input);
      if (Either.isRight(reported)) return decided;
      if (budget.skipped === 0 || reportOf(reported.left).capped) return Either.left(reported.left);
    }
  }
};

const checkThrew = (error: unknown): string => {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return `a check of the arguments threw (${text.split("\n")[0]?.slice(0, 200)}), so they were not accepted`;
};

/**
 * `ast` with a gate before every element of an array's rest and every value
 * of a record, and a struct's unexpected properties told by a gate of their
 * own (effect tells every one of them, each one's message made anew). What holds a gate is rebuilt around it, annotations kept, so
 * each message is the schema's own: structs, tuples, refinements, recursive
 * schemas and unions (which are decided again by the schema itself when a
 * gate left part of them unchecked). Transformations and declarations are
 * kept whole, and checked whole.
 */
const gated = (ast: AST.AST, budget: Budget): AST.AST => {
  const made = new Map<AST.AST, AST.AST>();
  const go = (node: AST.AST): AST.AST => {
    const known = made.get(node);
    if (known !== undefined) return known;
    const rebuilt = rebuild(node);
    made.set(node, rebuilt);
    return rebuilt;
  };
  const rebuild = (node: AST.AST): AST.AST => {
    switch (node._tag) {
      case "TupleType": {
        const [rest, ...after] = node.rest;
        if (node.elements.length === 0 && rest !== undefined && after.length === 0)
          return arrayGate(node, go(rest.type));
        return new AST.TupleType(
          node.elements.map((e) => new AST.OptionalType(go(e.type), e.isOptional, e.annotations)),
          node.rest.map((r) => new AST.Type(gate(go(r.type), r.type), r.annotations)),
          node.isReadonly,
          node.annotations,
        );
      }
      case "TypeLiteral": {
        const properties = node.propertySignatures.map((p) => [p, go(p.type)] as const);
        if (node.propertySignatures.length === 0 && node.indexSignatures.length === 0) return node;
        if (node.indexSignatures.length === 0 && properties.every(([p, type]) => type === p.type))
          return excessGate(node, node);
        const rebuilt = new AST.TypeLiteral(
          properties.map(
            ([p, type]) =>
              new AST.PropertySignature(p.name, type, p.isOptional, p.isReadonly, p.annotations),
          ),
          node.indexSignatures.map(
            (i) => new AST.IndexSignature(i.parameter, gate(go(i.type), i.type), i.isReadonly),
          ),
          node.annotations,
        );
        return excessGate(node, rebuilt);
      }
      case "Union": {
        const members = node.types.map(go);
        if (members.every((member, i) => member === node.types[i])) return node;
        return unionGate(node, AST.Union.make(members, node.annotations));
      }
      case "Refinement": {
        const from = go(node.from);
        return from === node.from ? node : new AST.Refinement(from, node.filter, node.annotations);
      }
      case "Suspend":
        return new AST.Suspend(() => go(node.f()), node.annotations);
      default:
        return node;
    }
  };

  /** `check`, its failure counted when it is the innermost one: each counted failure is a path of its own. */
  const counted = <E>(check: () => Either.Either<unknown, E>): Either.Either<unknown, E> => {
    const before = budget.failures;
    const checked = check();
    if (Either.isLeft(checked) && budget.failures === before) budget.failures += 1;
    return checked;
  };
  const spent = () => budget.failures >= budget.limit;
  /** A part not checked: a failure, so no union or filter takes it for a match; {@link reportOf} stops at it. */
  const unchecked = (input: unknown): ParseResult.ParseIssue => {
    budget.skipped += 1;
    return new ParseResult.Type(AST.unknownKeyword, input, NOT_CHECKED);
  };

  /** One element (or record value), checked while the budget lasts, marked after. */
  const gate = (inner: AST.AST, original: AST.AST): AST.AST => {
    const check = ParseResult.decodeUnknownEither(Schema.make(inner));
    return declaration(original, (input, options) =>
      spent() ? Either.left(unchecked(input)) : counted(() => check(input, options)),
    );
  };

  /**
   * A plain array (`Schema.Array`) whose loop ends once the budget is spent,
   * the elements after it not even visited: one mark stands for them all. What
   * is not an array is left to the array's own schema, told in its words.
   */
  const arrayGate = (array: AST.TupleType, element: AST.AST): AST.AST => {
    const whole = ParseResult.decodeUnknownEither(Schema.make(array));
    const check = ParseResult.decodeUnknownEither(Schema.make(element));
    return declaration(array, (input, options) => {
      if (!Array.isArray(input)) return whole(input, options);
      const issues: ParseResult.ParseIssue[] = [];
      for (let i = 0; i < input.length; i++) {
        if (spent()) {
          issues.push(new ParseResult.Pointer(i, input, unchecked(input[i])));
          break;
        }
        const checked = counted(() => check(input[i], options));
        if (Either.isLeft(checked)) issues.push(new ParseResult.Pointer(i, input, checked.left));
      }
      const [first, ...more] = issues;
      return first === undefined
        ? Either.right(input)
        : Either.left(new ParseResult.Composite(array, input, [first, ...more]));
    });
  };

  /**
   * A struct whose unexpected properties are told here, each one counted,
   * while the budget lasts (a mark stands for the rest); the struct itself
   * (`inner`) is checked on the properties it expects, in effect's words.
   * The same messages, in the same order (unexpected ones first), as effect's
   * own check, at a cost that does not grow with the unexpected properties.
   */
  const excessGate = (original: AST.TypeLiteral, inner: AST.AST): AST.AST => {
    const check = ParseResult.decodeUnknownEither(Schema.make(inner));
    const expectedAst = AST.Union.make([
      ...original.indexSignatures.map((i) => i.parameter),
      ...original.propertySignatures.map((p) =>
        typeof p.name === "symbol" ? new AST.UniqueSymbol(p.name) : new AST.Literal(p.name),
      ),
    ]);
    const expected = ParseResult.decodeUnknownEither(Schema.make(expectedAst));
    const message = `is unexpected, expected: ${String(expectedAst)}`;
    const names = original.propertySignatures.map((p) => p.name);
    const open = original.indexSignatures.length > 0;
    return declaration(original, (input, options) => {
      if (!Predicate.isRecord(input)) return check(input, options);
      const record = input as Record<PropertyKey, unknown>;
      const told: ParseResult.ParseIssue[] = [];
      // An open struct (with an index signature) keeps every key it expects; a closed one, its names.
      const kept: Record<PropertyKey, unknown> = {};
      let marked = false;
      for (const key of Reflect.ownKeys(record)) {
        if (Either.isRight(expected(key))) {
          if (open) kept[key] = record[key];
          continue;
        }
        if (marked) {
          if (open) continue;
          break;
        }
        if (spent()) {
          told.push(new ParseResult.Pointer(key, record, unchecked(record[key])));
          marked = true;
          continue;
        }
        budget.failures += 1;
        told.push(
          new ParseResult.Pointer(key, record, new ParseResult.Unexpected(record[key], message)),
        );
      }
      if (told.length === 0) return check(input, options);
      if (!open)
        for (const name of names) if (Object.hasOwn(record, name)) kept[name] = record[name];
      const checked = check(kept, options);
      const [first, ...more] = Either.isLeft(checked) ? [...told, checked.left] : told;
      return Either.left(
        new ParseResult.Composite(original, input, [first as ParseResult.ParseIssue, ...more]),
      );
    });
  };

  /**
   * A union with gates inside: refused with a part unchecked, it is decided
   * again by the schema itself (stopping at the first problem), so a member
   * that matches is never reported as a problem.
   */
  const unionGate = (original: AST.Union, rebuilt: AST.AST): AST.AST => {
    const check = ParseResult.decodeUnknownEither(Schema.make(rebuilt));
    const decide = ParseResult.decodeUnknownEither(Schema.make(original));
    return declaration(original, (input, options) => {
      const before = budget.skipped;
      const checked = check(input, options);
      if (Either.isRight(checked) || budget.skipped === before) return checked;
      return Either.isRight(decide(input, FIRST)) ? Either.right(input) : checked;
    });
  };

  return go(ast);
};

type Check = (
  input: unknown,
  options: AST.ParseOptions,
) => Either.Either<unknown, ParseResult.ParseIssue>;

/** A schema node that runs `check`, named as `original` so a message naming it reads as the schema's own. */
const declaration = (original: AST.AST, check: Check): AST.AST =>
  new AST.Declaration(
    [],
    () => check,
    () => (input) => Either.right(input),
    { [AST.IdentifierAnnotationId]: String(original) },
  );
