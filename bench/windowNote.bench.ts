/**
 * The window note at its bounds (the targets in docs/architecture.md): one
 * `windowNote` build, timed, and the UTF-8 length of what it returns.
 * Targets: ≤ 50 µs a build (mean), ≤ 2 048 bytes. No baseline ("—").
 *
 * Cases: the bounds filled (16 queries of the asking window, each with three
 * 1 000-char arguments cut to 200; 8 kinds of 100 ids; an 800-char route), so
 * the note must shrink past 2 KB; the same with every route, kind and argument
 * character one that JSON escapes to 6 bytes (`\u0000`, `<`); and a typical
 * small note. Each input is built once, outside the timing.
 */
import { Bench, hrtimeNowTimestampProvider } from "tinybench";
import {
  NOTE_BOUNDS,
  type NoteInput,
  type NoteQuery,
  type NoteSelection,
  windowNote,
} from "../src/runtime/prompt/windowNote.ts";
import { type Benchmark, type BenchResult, type PerCall, perCall, round2 } from "./report.ts";

const TARGET_US = 50;
const TARGET_BYTES = 2_048;
const ROUNDS = 5;

const CLIENT = "w1";

/** Commands the queries use, each with three named arguments, all offered. */
const COMMANDS: ReadonlyMap<string, ReadonlyArray<string>> = new Map([
  ["customers_search", ["query", "city", "status"]],
  ["invoices_list", ["customer", "status", "note"]],
  ["orders_search", ["text", "region", "channel"]],
  ["products_find", ["name", "category", "supplier"]],
]);
const COMMAND_NAMES = [...COMMANDS.keys()];
const offered: ReadonlySet<string> = new Set(COMMAND_NAMES);
const argumentNames = (command: string) => COMMANDS.get(command);

/**
 * A string of `length` characters from `chars`, the first ones spelling `n` in
 * binary (so two strings of different `n` differ within their first 16 characters).
 */
const spelled = (n: number, length: number, [zero, one]: readonly [string, string]): string => {
  let text = "";
  for (let i = 0; i < length; i++) {
    const bit = i < 16 ? (n >> i) & 1 : i & 1;
    text += bit === 1 ? one : zero;
  }
  return text;
};

interface Alphabet {
  /** The two characters strings are made of. */
  readonly chars: readonly [string, string];
  /** A readable prefix, so plain strings look like text. */
  readonly prefix: (n: number) => string;
}
const plain: Alphabet = { chars: ["a", "b"], prefix: (n) => `value ${n} ` };
/** Both escape to 6 bytes in the note: `\u0000` by JSON.stringify, `<` by the note's own escaping. */
const escaping: Alphabet = { chars: ["\u0000", "<"], prefix: () => "" };

const text = (alphabet: Alphabet, n: number, length: number): string => {
  const head = alphabet.prefix(n);
  return head + spelled(n, length - head.length, alphabet.chars);
};

/** The bounds filled: 16 queries × 3 arguments of 1 000 chars, 8 kinds × 100 ids, an 800-char route. */
const atBounds = (alphabet: Alphabet): NoteInput => {
  const route = alphabet === plain ? `/${text(alphabet, 0, 799)}` : text(alphabet, 0, 800);
  const queries: NoteQuery[] = [];
  for (let i = 0; i < NOTE_BOUNDS.queries; i++) {
    const command = COMMAND_NAMES[i % COMMAND_NAMES.length]!;
    const args: Record<string, string> = {};
    for (const [a, name] of COMMANDS.get(command)!.entries()) {
      args[name] = text(alphabet, i * 3 + a + 1, 1_000);
    }
    queries.push({ clientId: CLIENT, command, args, origin: "frontend" });
  }
  const selections: NoteSelection[] = [];
  for (let k = 0; k < NOTE_BOUNDS.kinds; k++) {
    const ids = Array.from(
      { length: NOTE_BOUNDS.idsPerKind },
      (_, i) => `k${k}-${String(i).padStart(6, "0")}`,
    );
    selections.push({ kind: text(alphabet, k + 1, 100), ids, route });
  }
  return { clientId: CLIENT, route, queries, selections, offered, argumentNames };
};

/** What a turn usually carries: a route, two queries, three ids of one kind. */
const typical: NoteInput = {
  clientId: CLIENT,
  route: "/customers/42",
  queries: [
    {
      clientId: CLIENT,
      command: "customers_search",
      args: { query: "Lovelace", city: "London", status: "active" },
      origin: "frontend",
    },
    {
      clientId: CLIENT,
      command: "invoices_list",
      args: { customer: "42", status: "overdue" },
      origin: "frontend",
    },
  ],
  selections: [{ kind: "invoice", ids: [1001, 1002, 1003], route: "/customers/42" }],
  offered,
  argumentNames,
};

interface Case {
  readonly name: string;
  readonly input: NoteInput;
}

const cases: ReadonlyArray<Case> = [
  { name: "at bounds: 16 queries, 8 × 100 ids", input: atBounds(plain) },
  { name: "at bounds, every char escaped (\\u0000, <)", input: atBounds(escaping) },
  { name: "typical: route, 2 queries, 3 ids", input: typical },
];

/** What a note kept of its input, read back from its JSON. */
interface Kept {
  readonly routeChars: number;
  readonly queries: number;
  readonly kinds: number;
  readonly ids: number;
  readonly more: boolean;
}

/** Builds the note once, checks it (non-null, ≤ 2 048 bytes, JSON inside the tag), and reads it back. */
const check = (c: Case): { readonly bytes: number; readonly kept: Kept } => {
  const note = windowNote(c.input);
  if (note === null) throw new Error(`${c.name}: no note`);
  const bytes = Buffer.byteLength(note, "utf8");
  if (bytes > TARGET_BYTES) throw new Error(`${c.name}: the note is ${bytes} bytes`);
  if (!note.startsWith("<window>{") || !note.endsWith("}</window>")) {
    throw new Error(`${c.name}: not a <window> note`);
  }
  const body = JSON.parse(note.slice("<window>".length, -"</window>".length)) as {
    route?: string;
    showing?: unknown[];
    selected?: Record<string, unknown[]>;
    more_selected?: number;
  };
  const selected = Object.values(body.selected ?? {});
  return {
    bytes,
    kept: {
      routeChars: body.route?.length ?? 0,
      queries: body.showing?.length ?? 0,
      kinds: selected.length,
      ids: selected.reduce((n, ids) => n + ids.length, 0),
      more: (body.more_selected ?? 0) > 0,
    },
  };
};

/** The median of a few figures (the rounds'), so one disturbed round does not move the result. */
const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Where each build's note goes, so the build is not optimised away. */
let sink: string | null = null;

/** Every case for `ROUNDS` rounds, each with its own warmup, the order reversed every other round. */
const measure = async (): Promise<Map<string, PerCall[]>> => {
  const figures = new Map<string, PerCall[]>(cases.map((c) => [c.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const bench = new Bench({
      name: `window note, round ${round + 1}`,
      time: 400,
      warmupTime: 150,
      timestampProvider: hrtimeNowTimestampProvider,
      throws: true,
    });
    const ordered = round % 2 === 0 ? cases : [...cases].reverse();
    for (const c of ordered) {
      bench.add(c.name, () => {
        sink = windowNote(c.input);
      });
    }
    await bench.run();
    for (const task of bench.tasks) figures.get(task.name)!.push(perCall(task));
  }
  if (sink === null) throw new Error("the last build made no note");
  return figures;
};

const run = async (): Promise<BenchResult> => {
  const checked = new Map(cases.map((c) => [c.name, check(c)]));
  const figures = await measure();
  const rows = cases.map((c) => {
    const { bytes, kept } = checked.get(c.name)!;
    const rounds = figures.get(c.name)!;
    const means = rounds.map((r) => r.meanUs);
    const meanUs = median(means);
    return {
      case: c.name,
      meanUs: round2(meanUs),
      rounds: `${round2(Math.min(...means))}–${round2(Math.max(...means))}`,
      p50Us: round2(median(rounds.map((r) => r.p50Us))),
      p99Us: round2(median(rounds.map((r) => r.p99Us))),
      bytes,
      routeChars: kept.routeChars,
      queries: kept.queries,
      kinds: kept.kinds,
      ids: kept.ids,
      more: kept.more,
      samples: rounds.reduce((sum, r) => sum + r.samples, 0),
      pass: meanUs <= TARGET_US && bytes <= TARGET_BYTES,
    };
  });
  return {
    title: "window note at its bounds (16 queries, 8 full selections)",
    baseline: "—",
    target: `≤ ${TARGET_US} µs a build (mean); ≤ ${TARGET_BYTES.toLocaleString("en-US")} bytes (UTF-8)`,
    pass: rows.every((r) => r.pass),
    headline: "meanUs",
    columns: [
      "case",
      "meanUs",
      "rounds",
      "p50Us",
      "p99Us",
      "bytes",
      "routeChars",
      "queries",
      "kinds",
      "ids",
      "more",
      "pass",
    ],
    rows,
    notes: [
      `One windowNote(input) call timed (tinybench, hrtime), the input built beforehand; medians of ${ROUNDS} rounds, ` +
        "each after a 150 ms warmup and of at least 400 ms and 64 builds. pass: meanUs ≤ target and bytes ≤ target; " +
        "rounds: the lowest and highest of the rounds' means (the spread). " +
        "p99Us is shown, not judged. The note is checked first: non-null, ≤ 2 048 bytes, JSON inside <window>.",
      "At bounds: 16 frontend queries of the asking window, all offered, each 3 named string arguments of 1 000 chars " +
        "(cut to 200); 8 kinds (names of 100 chars, cut to 64) × 100 string ids (9 chars), all on the route; " +
        "an 800-char route (cut to 500).",
      "Escaped: the route, the kind names and the argument strings made only of \\u0000 and < (6 bytes each in " +
        "the note); the ids as above.",
      "bytes: Buffer.byteLength of the note. routeChars, queries, kinds, ids, more: what the note kept.",
    ],
  };
};

export const benchmark: Benchmark = { name: "windowNote", run };
