/**
 * The public exports of every entry point (read from package.json's
 * `exports`), with their doc comments and `@example` samples, and the
 * samples compiled against the entry points as a user would write them.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const REPO = join(import.meta.dirname, "../..");

/** An entry point: the subpath people import, and the source file behind it. */
export interface Entry {
  readonly specifier: string;
  readonly source: string;
}

/** The entry points package.json exports, each with its source (`dist/x.d.ts` is built from `src/x.ts`). */
export const entries = (): Entry[] => {
  const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
    readonly name: string;
    readonly exports: Record<string, string | { readonly types?: string }>;
  };
  return Object.entries(pkg.exports).flatMap(([key, target]) => {
    const types = typeof target === "string" ? undefined : target.types;
    if (types === undefined) return [];
    const source = types.replace(/^\.\/dist\//, "src/").replace(/\.d\.ts$/, ".ts");
    return [{ specifier: key === "." ? pkg.name : `${pkg.name}/${key.slice(2)}`, source }];
  });
};

/** One export of an entry point. */
export interface ExportDoc {
  readonly entry: string;
  readonly name: string;
  /** A value (a function, class, constant), not only a type. */
  readonly value: boolean;
  /** Where it is declared, from the repository's root. */
  readonly file: string;
  readonly documented: boolean;
  /** The TypeScript samples of its `@example` tags. */
  readonly examples: ReadonlyArray<string>;
}

let compilerOptions: ts.CompilerOptions | undefined;
/** tsconfig.json's options, read once. */
const options = (): ts.CompilerOptions => {
  if (compilerOptions !== undefined) return compilerOptions;
  const config = ts.readConfigFile(join(REPO, "tsconfig.json"), ts.sys.readFile);
  compilerOptions = ts.parseJsonConfigFileContent(config.config, ts.sys, REPO).options;
  return compilerOptions;
};

const samplesOf = (text: string): string[] =>
  [...text.matchAll(/```tsx?\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");

const tagText = (tag: ts.JSDocTagInfo): string => (tag.text ?? []).map((p) => p.text).join("");

/** Every export of every entry point, with its docs. */
export const exportDocs = (): ExportDoc[] => {
  const list = entries();
  const program = ts.createProgram(
    list.map((e) => join(REPO, e.source)),
    options(),
  );
  const checker = program.getTypeChecker();
  return list.flatMap((entry) => {
    const file = program.getSourceFile(join(REPO, entry.source));
    const module = file === undefined ? undefined : checker.getSymbolAtLocation(file);
    if (module === undefined) throw new Error(`${entry.source} is not a module`);
    return checker.getExportsOfModule(module).map((exported): ExportDoc => {
      const symbol =
        exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      // Exported as a type (`export type { X }`) anywhere along the way: a type, whatever X is.
      let typeOnly = false;
      for (
        let at: ts.Symbol | undefined = exported;
        at !== undefined && at.flags & ts.SymbolFlags.Alias;
        at = checker.getImmediateAliasedSymbol(at)
      )
        if (at.declarations?.some((d) => ts.isTypeOnlyImportOrExportDeclaration(d)))
          typeOnly = true;
      const declaration = symbol.declarations?.[0];
      const docs = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
      const tags = symbol.getJsDocTags(checker);
      return {
        entry: entry.specifier,
        name: exported.name,
        value: !typeOnly && (symbol.flags & ts.SymbolFlags.Value) !== 0,
        file:
          declaration === undefined ? "?" : relative(REPO, declaration.getSourceFile().fileName),
        documented: docs.length > 0,
        examples: tags.filter((t) => t.name === "example").flatMap((t) => samplesOf(tagText(t))),
      };
    });
  });
};

/** Why a sample does not compile, by where it came from. */
export interface SampleProblem {
  readonly entry: string;
  readonly name: string;
  readonly message: string;
}

const CANNOT_FIND = new Set([2304, 2552, 18004]);

/**
 * Compiles each sample as a module of its own, against the entry points:
 * the names of its entry and of the root are imported for it (a sample
 * importing a name itself keeps its own); any other name it uses but does
 * not declare is the example's context (`window`, `app`), declared `any`,
 * unless an entry point exports it: then it must be imported.
 */
export const compileSamples = (docs: ReadonlyArray<ExportDoc>): SampleProblem[] => {
  const byEntry = new Map<string, Map<string, boolean>>();
  for (const d of docs) {
    const names = byEntry.get(d.entry) ?? new Map<string, boolean>();
    names.set(d.name, d.value);
    byEntry.set(d.entry, names);
  }
  const exported = new Set(docs.map((d) => d.name));
  const root = entries()[0]?.specifier ?? "";
  const dir = join(REPO, "spec/docs/.samples");
  const samples = docs.flatMap((d) =>
    d.examples.map((sample, i) => ({ doc: d, sample, i, tsx: /<\/|\/>/.test(sample) })),
  );
  const header = (sample: string, entry: string): string => {
    const own = new Set(
      [...sample.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from/g)].flatMap((m) =>
        (m[1] ?? "").split(",").map(
          (n) =>
            n
              .trim()
              .replace(/^type\s+/, "")
              .split(/\s+as\s+/)
              .pop() ?? "",
        ),
      ),
    );
    const lines: string[] = [];
    const taken = new Set(own);
    for (const from of [entry, root]) {
      const names = [...(byEntry.get(from) ?? [])].filter(([n]) => !taken.has(n));
      for (const [n] of names) taken.add(n);
      const list = names.map(([n, value]) => (value ? n : `type ${n}`));
      if (list.length > 0) lines.push(`import { ${list.join(", ")} } from "${from}";`);
    }
    return lines.join("\n");
  };
  const files = new Map<string, string>();
  const where = new Map<string, (typeof samples)[number]>();
  const build = (declared: Map<string, Set<string>>) => {
    files.clear();
    for (const [n, s] of samples.entries()) {
      const name = join(dir, `sample${n}.${s.tsx ? "tsx" : "ts"}`);
      const context = [...(declared.get(name) ?? [])].map((n) => `declare const ${n}: any;`);
      files.set(
        name,
        `${header(s.sample, s.doc.entry)}\n${context.join("\n")}\n${s.sample}\nexport {};\n`,
      );
      where.set(name, s);
    }
    const base = {
      ...options(),
      noImplicitAny: false,
      noUnusedLocals: false,
      noUnusedParameters: false,
    };
    const host = ts.createCompilerHost(base);
    const read = host.readFile.bind(host);
    host.readFile = (f) => files.get(f) ?? read(f);
    const exists = host.fileExists.bind(host);
    host.fileExists = (f) => files.has(f) || exists(f);
    const getSource = host.getSourceFile.bind(host);
    host.getSourceFile = (f, v, onError, create) => {
      const text = files.get(f);
      return text === undefined
        ? getSource(f, v, onError, create)
        : ts.createSourceFile(
            f,
            text,
            v,
            true,
            f.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
          );
    };
    const program = ts.createProgram([...files.keys()], base, host);
    return [...files.keys()].flatMap((f) => {
      const source = program.getSourceFile(f);
      if (source === undefined) return [];
      const found = [
        ...program.getSyntacticDiagnostics(source),
        ...program.getSemanticDiagnostics(source),
      ];
      return found.map((d) => ({ f, d }));
    });
  };
  const declared = new Map<string, Set<string>>();
  const problems: SampleProblem[] = [];
  for (const { f, d } of build(declared)) {
    const s = where.get(f);
    if (s === undefined) continue;
    const missing = CANNOT_FIND.has(d.code)
      ? /'([^']+)'/.exec(ts.flattenDiagnosticMessageText(d.messageText, " "))?.[1]
      : undefined;
    if (missing !== undefined && !exported.has(missing)) {
      const set = declared.get(f) ?? new Set<string>();
      set.add(missing);
      declared.set(f, set);
    }
  }
  for (const { f, d } of build(declared)) {
    const s = where.get(f);
    if (s === undefined) continue;
    problems.push({
      entry: s.doc.entry,
      name: s.doc.name,
      message: ts.flattenDiagnosticMessageText(d.messageText, " "),
    });
  }
  return problems;
};
