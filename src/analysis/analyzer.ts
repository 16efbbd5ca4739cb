/**
 * The one entry point the server and the CLI share: parse, run the language's rules, then apply
 * what the user asked for (rule selection, severities, suppressions). Keeping this in one place
 * is what makes `lint` and the editor agree.
 */
import type { Parser, Tree } from 'web-tree-sitter';
import { compareFindings, type Finding } from './diagnostics';
import { languageOf } from './files';
import { analyzeGoPackage, type GoAnalysisCache } from './go/analyze';
import { TypeIndex, type GoFile, type ModuleFuncs } from './go/package';
import { createGoParser, parseGo } from './go/parser';
import { TreeCopier } from './go/tree';
import { effectiveSeverity, type SeverityConfig } from './rules';
import { isSuppressed, suppressions } from './suppression';
import { LineIndex } from './text';
import { analyzeTypeScript } from './ts/analyze';

export interface SelectionOptions {
  severity?: SeverityConfig;
  /** run only these rules (empty or absent: all) */
  only?: ReadonlySet<string>;
  disable?: ReadonlySet<string>;
}

export class Analyzer {
  private constructor(private readonly parser: Parser) {}

  /**
   * Where the analysis says that it stopped short (a bound was hit). Standard error by default,
   * which the CLI shows and a stdio language server keeps off its protocol stream; the server
   * points it at the client's output channel.
   */
  log: (line: string) => void = (line) => console.warn(`reconcile-studio: ${line}`);

  static async create(): Promise<Analyzer> {
    return new Analyzer(await createGoParser());
  }

  /**
   * Parses a Go file; pass the previous tree, already `edit()`ed, to parse incrementally, and the
   * document's TreeCopier so unchanged declarations are not copied again.
   */
  parseGo(
    path: string,
    text: string,
    old?: Tree | null,
    copier: TreeCopier = new TreeCopier(),
  ): GoFile {
    const tree = parseGo(this.parser, text, old);
    try {
      return { path, text, tree, root: copier.copy(tree, text), lines: new LineIndex(text) };
    } catch (err) {
      // The copy recurses per nesting level: a pathological file overflows the stack. The caller
      // never gets the tree, so free its wasm memory here.
      tree.delete();
      throw err;
    }
  }

  /**
   * Analyzes a Go package. `report` limits findings to some files (the others are context for
   * following helpers); `types` supplies API struct types declared in other packages.
   */
  analyzeGo(
    files: GoFile[],
    options: SelectionOptions & {
      report?: ReadonlySet<string>;
      types?: TypeIndex;
      cache?: GoAnalysisCache;
      module?: ModuleFuncs;
    } = {},
  ): Finding[] {
    const raw = analyzeGoPackage(files, {
      types: options.types,
      module: options.module,
      reportFiles: options.report,
      cache: options.cache,
      log: this.log,
    });
    return select(raw, new Map(files.map((f) => [f.path, f.text])), options);
  }

  analyzeTypeScript(path: string, text: string, options: SelectionOptions = {}): Finding[] {
    return select(analyzeTypeScript(path, text), new Map([[path, text]]), options);
  }

  /** One file on its own (tests, quick checks): Go or TypeScript by extension. */
  analyzeFile(path: string, text: string, options: SelectionOptions = {}): Finding[] {
    const lang = languageOf(path) ?? (path.endsWith('_test.go') ? null : 'go');
    if (lang === 'typescript') return this.analyzeTypeScript(path, text, options);
    const file = this.parseGo(path, text);
    try {
      return this.analyzeGo([file], options);
    } finally {
      file.tree.delete();
    }
  }
}

/** Applies rule selection, severities from settings and suppression comments. */
export function select(
  findings: Finding[],
  texts: Map<string, string>,
  options: SelectionOptions,
): Finding[] {
  const supp = new Map<string, ReturnType<typeof suppressions>>();
  const out: Finding[] = [];
  for (const f of findings) {
    if (options.only && options.only.size > 0 && !options.only.has(f.rule)) continue;
    if (options.disable?.has(f.rule)) continue;
    const severity = effectiveSeverity(f.rule, options.severity);
    if (!severity) continue;
    let map = supp.get(f.file);
    if (!map) {
      map = suppressions(texts.get(f.file) ?? '');
      supp.set(f.file, map);
    }
    if (isSuppressed(f, map)) continue;
    out.push({ ...f, severity });
  }
  return out.sort(compareFindings);
}

export { TypeIndex };
