/**
 * A command's example arguments: what the model is shown of well-formed
 * calls (the tool's `input_examples`), checked when the command is declared
 * (decoded with its own arguments, bounded in number and size) and kept as
 * the JSON the model is sent.
 */
import { Either, type ParseResult } from "effect";
import { jsonTextOf } from "../json.ts";
import { issueLines, issuesOf } from "./issues.ts";

/**
 * The most examples a command may declare: 5. Each is sent with the tool on
 * every request that offers it, so a few that show what the schema cannot
 * say (an optional argument used, a format) are worth more than many.
 */
export const MAX_EXAMPLES = 5;

/** The most JSON one example may be: 2 048 bytes (UTF-8), about 500 tokens. */
export const MAX_EXAMPLE_BYTES = 2_048;

/** The examples as the model is sent them: JSON objects, each decoded by the command's arguments. */
export type ArgumentExamples = ReadonlyArray<Readonly<Record<string, unknown>>>;

const utf8 = new TextEncoder();

/** The problems of one decoding, in one line: the first three, then how many more. */
const problemsOf = (error: ParseResult.ParseError): string => {
  const lines = issueLines(issuesOf(error));
  const shown = lines.slice(0, 3).join("; ");
  return lines.length > 3 ? `${shown}; and ${lines.length - 3} more` : shown;
};

/**
 * The declared examples as the JSON the model is sent, or why they cannot
 * be (a sentence naming the example by its index): not an array, more than
 * {@link MAX_EXAMPLES}, one that JSON cannot hold or that is larger than
 * {@link MAX_EXAMPLE_BYTES}, or one its command's `decode` refuses. What is
 * decoded is the JSON copy, so an example is checked as it is sent.
 */
export const examplesOf = (
  examples: unknown,
  decode: (input: unknown) => Either.Either<unknown, ParseResult.ParseError>,
): ArgumentExamples | string => {
  if (!Array.isArray(examples)) return "examples must be an array of argument objects";
  if (examples.length > MAX_EXAMPLES)
    return `examples must be at most ${MAX_EXAMPLES} argument objects, not ${examples.length}`;
  const kept: Array<Readonly<Record<string, unknown>>> = [];
  for (const [index, example] of examples.entries()) {
    const at = `examples[${index}]`;
    if (typeof example !== "object" || example === null || Array.isArray(example))
      return `${at} must be an object of arguments, as JSON`;
    const written = jsonTextOf(example, at);
    if (written._tag === "NotJson") return `${written.problem}, so it cannot be sent as JSON`;
    const bytes = utf8.encode(written.text).length;
    if (bytes > MAX_EXAMPLE_BYTES)
      return `${at} is ${bytes} bytes of JSON, over the ${MAX_EXAMPLE_BYTES} an example may be`;
    const sent = JSON.parse(written.text) as Record<string, unknown>;
    const decoded = decode(sent);
    if (Either.isLeft(decoded)) return `${at} is not valid arguments: ${problemsOf(decoded.left)}`;
    kept.push(sent);
  }
  return kept;
};
