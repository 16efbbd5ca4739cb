/**
 * `reconcile-studio lint PATH... [--format text|json|sarif] [--rule ID]... [--disable ID]...`
 * Runs the editor's analyzers headless. Go files are analyzed one package (directory) at a time so
 * helpers in sibling files are followed; API types found anywhere under the Go module feed the
 * rules that need them. A file that cannot be analyzed (not a regular file, too large, binary, or
 * one an analyzer fails on) is reported and the others still are. Exit 0 clean, 1 findings at
 * warning or above, 2 usage or internal error (an analyzer failed on some file).
 */
import { statSync, existsSync, type Dirent } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { Analyzer, TypeIndex } from '../analysis/analyzer';
import { SEVERITY_RANK, type Finding } from '../analysis/diagnostics';
import type { GoFile } from '../analysis/go/package';
import { isGenerated, isVendored, languageOf } from '../analysis/files';
import { crdFiles, moduleRoot } from '../analysis/workspace';
import { GoModule, modulePath } from '../analysis/go/module';
import { RULES, RULE_IDS, RULES_DOCS_DIR, ruleDocsUrl } from '../analysis/rules';
import { VERSION } from '../util/version';
import { walkFiles } from '../util/walk';
import {
  DEFAULT_MAX_FILE_BYTES,
  formatSize,
  parseSize,
  readSource,
  type LintNotification,
} from './lintinput';

const USAGE = `Usage: reconcile-studio lint PATH... [options]

Reports reconcile anti-patterns in Go (controller-runtime) and TypeScript reconcilers.

Options:
  --format text|json|sarif  output format (default: text)
  --rule ID                 run only this rule (repeatable)
  --disable ID              do not run this rule (repeatable)
  --max-file-size SIZE      skip files larger than this, e.g. 4MiB (default ${formatSize(DEFAULT_MAX_FILE_BYTES)})
  -h, --help                show this help

Skipped files (not regular files, too large, binary) are reported as notes; a file an analyzer
fails on is reported as an error and the other files are still analyzed.

Rules: ${RULE_IDS.join(', ')}
Exit status: 0 clean (or only information/hints), 1 findings at warning or above, 2 usage error
or internal error (an analyzer failed on a file; the other files' findings are still printed).`;

/** Directories never worth walking into. */
const SKIP_DIRS = new Set(['vendor', 'node_modules', '.git', 'dist', 'testdata', '.e2e']);
/** Upper bound on API type files indexed from the module root, so huge monorepos stay quick. */
const MAX_TYPE_FILES = 2000;

export async function run(argv: string[]): Promise<number> {
  let values: {
    format?: string;
    rule?: string[];
    disable?: string[];
    'max-file-size'?: string;
    help?: boolean;
  };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: {
        format: { type: 'string' },
        rule: { type: 'string', multiple: true },
        disable: { type: 'string', multiple: true },
        'max-file-size': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
    }));
  } catch (err) {
    console.error(
      `reconcile-studio lint: ${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`,
    );
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const format = values.format ?? 'text';
  if (!['text', 'json', 'sarif'].includes(format)) {
    console.error(`reconcile-studio lint: unknown format "${format}" (text, json or sarif)`);
    return 2;
  }
  const selected = [...(values.rule ?? []), ...(values.disable ?? [])].flatMap((r) => r.split(','));
  const unknown = selected.filter((r) => !RULE_IDS.includes(r));
  if (unknown.length) {
    console.error(
      `reconcile-studio lint: unknown rule ${unknown.join(', ')}\nRules: ${RULE_IDS.join(', ')}`,
    );
    return 2;
  }
  const maxFileBytes =
    values['max-file-size'] === undefined
      ? DEFAULT_MAX_FILE_BYTES
      : parseSize(values['max-file-size']);
  if (maxFileBytes === undefined) {
    console.error(
      `reconcile-studio lint: --max-file-size "${values['max-file-size']}" is not a size (e.g. 2097152, 512KiB, 4MiB)`,
    );
    return 2;
  }
  const paths = positionals.length ? positionals : ['.'];
  for (const p of paths) {
    if (!existsSync(p)) {
      console.error(`reconcile-studio lint: ${p}: no such file or directory`);
      return 2;
    }
  }

  const { findings, notifications } = await lintPaths(
    paths,
    {
      only: new Set((values.rule ?? []).flatMap((r) => r.split(','))),
      disable: new Set((values.disable ?? []).flatMap((r) => r.split(','))),
    },
    { maxFileBytes },
  );
  const cwd = process.cwd();
  const rel = (f: string): string => relative(cwd, f).split(sep).join('/') || f;
  // Notes go to stderr in every format, so stdout stays the findings (text, a JSON array, SARIF).
  for (const n of notifications) console.error(notificationLine(n, rel));
  if (format === 'json') console.log(JSON.stringify(toJson(findings, rel), null, 2));
  else if (format === 'sarif')
    console.log(JSON.stringify(toSarif(findings, rel, notifications), null, 2));
  else printText(findings, rel);
  if (notifications.some((n) => n.level === 'error')) return 2;
  return findings.some((f) => SEVERITY_RANK[f.severity] >= SEVERITY_RANK.warning) ? 1 : 0;
}

function notificationLine(n: LintNotification, rel: (f: string) => string): string {
  return `reconcile-studio lint: ${rel(n.file)}: ${n.level === 'note' ? 'skipped' : 'error'}: ${n.message}`;
}

/** Every analyzable file under `paths` (files given explicitly are taken even if generated). */
export function collectFiles(paths: string[]): string[] {
  const out = new Set<string>();
  const analyzable = (full: string, e: Dirent) =>
    e.isFile() && Boolean(languageOf(full)) && !isVendored(full);
  const enter = (name: string) => !SKIP_DIRS.has(name) && !name.startsWith('.');
  for (const p of paths) {
    const abs = resolve(p);
    if (statSync(abs).isDirectory())
      for (const f of walkFiles(abs, analyzable, { enter })) out.add(f);
    else if (languageOf(abs)) out.add(abs);
  }
  return [...out].sort();
}

export interface LintResult {
  findings: Finding[];
  /** Files skipped (notes) and files an analyzer failed on (errors). */
  notifications: LintNotification[];
}

export async function lintPaths(
  paths: string[],
  selection: { only?: ReadonlySet<string>; disable?: ReadonlySet<string> } = {},
  limits: { maxFileBytes?: number } = {},
): Promise<LintResult> {
  const maxBytes = limits.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const analyzer = await Analyzer.create();
  const notifications: LintNotification[] = [];
  const failed = (file: string, err: unknown): void => {
    const e = err instanceof Error ? err : new Error(String(err));
    notifications.push({
      file,
      level: 'error',
      message: `analysis failed: ${e.message}`,
      exception: { kind: e.name, message: e.message },
    });
  };
  const files: Array<{ path: string; text: string }> = [];
  for (const path of collectFiles(paths)) {
    const read = readSource(path, maxBytes);
    if ('skipped' in read) notifications.push({ file: path, level: 'note', message: read.skipped });
    else if (!isGenerated(read.text)) files.push({ path, text: read.text });
  }
  const goFiles = files.filter((f) => f.path.endsWith('.go'));
  const types = indexTypes(
    analyzer,
    goFiles.map((f) => f.path),
    maxBytes,
  );
  const findings: Finding[] = [];

  const packages = new Map<string, typeof goFiles>();
  for (const f of goFiles) {
    const dir = dirname(f.path);
    packages.set(dir, [...(packages.get(dir) ?? []), f]);
  }
  const modules = new ModuleLoader(analyzer, types, maxBytes);
  try {
    for (const group of packages.values()) {
      const module = modules.of(dirname(group[0].path));
      findings.push(...lintGoPackage(analyzer, group, { ...selection, types, module }, failed));
    }
  } finally {
    modules.dispose();
  }
  for (const f of files.filter((x) => languageOf(x.path) === 'typescript')) {
    try {
      findings.push(...analyzer.analyzeTypeScript(f.path, f.text, selection));
    } catch (err) {
      failed(f.path, err);
    }
  }
  notifications.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return { findings, notifications };
}

/** Parses one package's files and analyzes them; its trees are freed afterwards. */
function lintGoPackage(
  analyzer: Analyzer,
  group: Array<{ path: string; text: string }>,
  options: Parameters<Analyzer['analyzeGo']>[1],
  failed: (file: string, err: unknown) => void,
): Finding[] {
  const parsed: GoFile[] = [];
  for (const f of group) {
    try {
      parsed.push(analyzer.parseGo(f.path, f.text));
    } catch (err) {
      failed(f.path, err);
    }
  }
  try {
    return analyzePackage(analyzer, parsed, options, failed);
  } finally {
    for (const p of parsed) p.tree.delete();
  }
}

/**
 * The Go modules of the linted files, each with its other packages parsed when a call first
 * reaches into them (module.ts); their trees are freed by dispose().
 */
class ModuleLoader {
  private readonly modules = new Map<string, GoModule | null>();
  private readonly parsed: GoFile[] = [];

  constructor(
    private readonly analyzer: Analyzer,
    private readonly types: TypeIndex,
    private readonly maxBytes: number,
  ) {}

  of(dir: string): GoModule | undefined {
    const root = moduleRoot(dir);
    if (!root) return undefined;
    let module = this.modules.get(root);
    if (module === undefined) {
      const path = modulePath(root);
      module = path ? new GoModule(root, path, (d) => this.load(d), this.types) : null;
      this.modules.set(root, module);
    }
    return module ?? undefined;
  }

  private load(dir: string): GoFile[] {
    const out: GoFile[] = [];
    const names = walkFiles(dir, (p, e) => e.isFile() && languageOf(p) === 'go', { maxDepth: 0 });
    for (const path of names) {
      const read = readSource(path, this.maxBytes);
      if ('skipped' in read || isGenerated(read.text)) continue;
      try {
        out.push(this.analyzer.parseGo(path, read.text));
      } catch {
        // a file the parser fails on is reported where it is linted; here it adds nothing
      }
    }
    this.parsed.push(...out);
    return out;
  }

  dispose(): void {
    for (const f of this.parsed) f.tree.delete();
    this.parsed.length = 0;
  }
}

/**
 * A package's findings. When the analysis of the whole package fails, each file is tried alone
 * to find the ones that fail; the package is then analyzed again without them, so one bad file
 * costs only its own findings.
 */
export function analyzePackage(
  analyzer: Analyzer,
  parsed: GoFile[],
  options: Parameters<Analyzer['analyzeGo']>[1],
  failed: (file: string, err: unknown) => void,
): Finding[] {
  if (!parsed.length) return [];
  try {
    return analyzer.analyzeGo(parsed, options);
  } catch (packageErr) {
    const bad = new Set<GoFile>();
    for (const p of parsed) {
      try {
        analyzer.analyzeGo([p], options);
      } catch (err) {
        failed(p.path, err);
        bad.add(p);
      }
    }
    const rest = parsed.filter((p) => !bad.has(p));
    if (!rest.length) return [];
    try {
      return analyzer.analyzeGo(rest, options);
    } catch {
      // Each file is fine alone, together they fail: report the package's files.
      for (const p of rest) failed(p.path, packageErr);
      return [];
    }
  }
}

/**
 * API struct types: every `*_types.go` under the Go modules of the files being linted, so linting
 * only internal/controller still sees api/v1's status fields; and the CRDs' YAML, for the custom
 * kinds that are cluster-scoped.
 */
function indexTypes(analyzer: Analyzer, goPaths: string[], maxBytes: number): TypeIndex {
  const index = new TypeIndex();
  const seen = new Set<string>();
  const add = (path: string): void => {
    if (seen.has(path) || seen.size >= MAX_TYPE_FILES) return;
    seen.add(path);
    const read = readSource(path, maxBytes);
    // Skipped files are reported where they are linted; here they contribute no types.
    if ('skipped' in read || !read.text.includes('struct')) return;
    let file: GoFile | undefined;
    try {
      file = analyzer.parseGo(path, read.text);
      index.addFile(file.root, path.endsWith('_types.go'));
    } catch {
      // a file the analyzer fails on contributes nothing (its failure is reported when linted)
    } finally {
      file?.tree.delete();
    }
  };
  // The package being analyzed contributes its own types; here we only need the API types.
  const roots = new Set<string>();
  for (const p of goPaths) {
    if (p.endsWith('_types.go')) add(p);
    const root = moduleRoot(dirname(p));
    if (root) roots.add(root);
  }
  for (const root of roots) {
    for (const f of collectFiles([root])) if (f.endsWith('_types.go')) add(f);
    for (const f of crdFiles(root)) {
      const read = readSource(f, maxBytes);
      if (!('skipped' in read) && read.text.includes('CustomResourceDefinition'))
        index.addCrdYaml(read.text);
    }
  }
  return index;
}

export interface JsonFinding {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  rule: string;
  severity: string;
  message: string;
}

export function toJson(findings: Finding[], rel: (f: string) => string = (f) => f): JsonFinding[] {
  return findings.map((f) => ({
    file: rel(f.file),
    line: f.range.start.line + 1,
    column: f.range.start.character + 1,
    endLine: f.range.end.line + 1,
    endColumn: f.range.end.character + 1,
    rule: f.rule,
    severity: f.severity,
    message: f.message,
  }));
}

function printText(findings: Finding[], rel: (f: string) => string): void {
  for (const f of findings) {
    console.log(
      `${rel(f.file)}:${f.range.start.line + 1}:${f.range.start.character + 1}: ${f.severity} [${f.rule}] ${f.message}`,
    );
  }
  const count = (s: string): number => findings.filter((f) => f.severity === s).length;
  if (findings.length) {
    console.log(
      `\n${findings.length} finding(s): ${count('error')} error, ${count('warning')} warning, ${count('information') + count('hint')} info`,
    );
  }
}

const SARIF_LEVEL: Record<string, string> = {
  error: 'error',
  warning: 'warning',
  information: 'note',
  hint: 'note',
};

export function toSarif(
  findings: Finding[],
  rel: (f: string) => string = (f) => f,
  notifications: LintNotification[] = [],
): object {
  const ruleIndex = new Map(RULES.map((r, i) => [r.id, i]));
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'reconcile-studio',
            version: VERSION,
            informationUri: pathToFileURL(join(RULES_DOCS_DIR, 'README.md')).toString(),
            rules: RULES.map((r) => ({
              id: r.id,
              name: r.id.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase()),
              shortDescription: { text: r.title },
              fullDescription: { text: r.summary },
              helpUri: ruleDocsUrl(r.id),
              defaultConfiguration: { level: SARIF_LEVEL[r.defaultSeverity] },
            })),
          },
        },
        invocations: [
          {
            executionSuccessful: !notifications.some((n) => n.level === 'error'),
            toolExecutionNotifications: notifications.map((n) => ({
              level: n.level,
              message: { text: n.message },
              descriptor: { id: n.level === 'error' ? 'analysis-failed' : 'file-skipped' },
              locations: [
                {
                  physicalLocation: {
                    artifactLocation: { uri: rel(n.file), uriBaseId: '%SRCROOT%' },
                  },
                },
              ],
              ...(n.exception ? { exception: n.exception } : {}),
            })),
          },
        ],
        columnKind: 'utf16CodeUnits',
        results: findings.map((f) => ({
          ruleId: f.rule,
          ruleIndex: ruleIndex.get(f.rule) ?? -1,
          level: SARIF_LEVEL[f.severity],
          message: { text: f.message },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: rel(f.file), uriBaseId: '%SRCROOT%' },
                region: {
                  startLine: f.range.start.line + 1,
                  startColumn: f.range.start.character + 1,
                  endLine: f.range.end.line + 1,
                  endColumn: f.range.end.character + 1,
                },
              },
            },
          ],
        })),
      },
    ],
  };
}
