/**
 * `reconcile-studio lint PATH... [--format text|json|sarif] [--rule ID]... [--disable ID]...`
 * Runs the editor's analyzers headless. Go files are analyzed one package (directory) at a time so
 * helpers in sibling files are followed; API types found anywhere under the Go module feed the
 * rules that need them. Exit 1 when anything at warning or above is found, 2 on usage errors.
 */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { Analyzer, TypeIndex } from '../analysis/analyzer';
import { SEVERITY_RANK, type Finding } from '../analysis/diagnostics';
import { isGenerated, isVendored, languageOf } from '../analysis/files';
import { moduleRoot } from '../analysis/workspace';
import { RULES, RULE_IDS, RULES_DOCS_DIR, ruleDocsUrl } from '../analysis/rules';
import { VERSION } from '../util/version';

const USAGE = `Usage: reconcile-studio lint PATH... [options]

Reports reconcile anti-patterns in Go (controller-runtime) and TypeScript reconcilers.

Options:
  --format text|json|sarif  output format (default: text)
  --rule ID                 run only this rule (repeatable)
  --disable ID              do not run this rule (repeatable)
  -h, --help                show this help

Rules: ${RULE_IDS.join(', ')}
Exit status: 0 clean (or only information/hints), 1 findings at warning or above, 2 usage error.`;

/** Directories never worth walking into. */
const SKIP_DIRS = new Set(['vendor', 'node_modules', '.git', 'dist', 'testdata', '.e2e']);
/** Upper bound on API type files indexed from the module root, so huge monorepos stay quick. */
const MAX_TYPE_FILES = 2000;

export async function run(argv: string[]): Promise<number> {
  let values: { format?: string; rule?: string[]; disable?: string[]; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: {
        format: { type: 'string' },
        rule: { type: 'string', multiple: true },
        disable: { type: 'string', multiple: true },
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
  const paths = positionals.length ? positionals : ['.'];
  for (const p of paths) {
    if (!existsSync(p)) {
      console.error(`reconcile-studio lint: ${p}: no such file or directory`);
      return 2;
    }
  }

  const findings = await lintPaths(paths, {
    only: new Set((values.rule ?? []).flatMap((r) => r.split(','))),
    disable: new Set((values.disable ?? []).flatMap((r) => r.split(','))),
  });
  const cwd = process.cwd();
  const rel = (f: string): string => relative(cwd, f).split(sep).join('/') || f;
  if (format === 'json') console.log(JSON.stringify(toJson(findings, rel), null, 2));
  else if (format === 'sarif') console.log(JSON.stringify(toSarif(findings, rel), null, 2));
  else printText(findings, rel);
  return findings.some((f) => SEVERITY_RANK[f.severity] >= SEVERITY_RANK.warning) ? 1 : 0;
}

/** Every analyzable file under `paths` (files given explicitly are taken even if generated). */
export function collectFiles(paths: string[]): string[] {
  const out = new Set<string>();
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const full = join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) walk(full);
      } else if (e.isFile() && languageOf(full) && !isVendored(full)) {
        out.add(full);
      }
    }
  };
  for (const p of paths) {
    const abs = resolve(p);
    if (statSync(abs).isDirectory()) walk(abs);
    else if (languageOf(abs)) out.add(abs);
  }
  return [...out].sort();
}

export async function lintPaths(
  paths: string[],
  selection: { only?: ReadonlySet<string>; disable?: ReadonlySet<string> } = {},
): Promise<Finding[]> {
  const analyzer = await Analyzer.create();
  const files = collectFiles(paths)
    .map((path) => ({ path, text: readFileSync(path, 'utf8') }))
    .filter((f) => !isGenerated(f.text));
  const goFiles = files.filter((f) => f.path.endsWith('.go'));
  const types = indexTypes(
    analyzer,
    goFiles.map((f) => f.path),
  );
  const findings: Finding[] = [];

  const packages = new Map<string, typeof goFiles>();
  for (const f of goFiles) {
    const dir = dirname(f.path);
    packages.set(dir, [...(packages.get(dir) ?? []), f]);
  }
  for (const group of packages.values()) {
    const parsed = group.map((f) => analyzer.parseGo(f.path, f.text));
    try {
      findings.push(...analyzer.analyzeGo(parsed, { ...selection, types }));
    } finally {
      for (const p of parsed) p.tree.delete();
    }
  }
  for (const f of files.filter((x) => languageOf(x.path) === 'typescript')) {
    findings.push(...analyzer.analyzeTypeScript(f.path, f.text, selection));
  }
  return findings;
}

/**
 * API struct types: every `*_types.go` under the Go modules of the files being linted, so linting
 * only internal/controller still sees api/v1's status fields.
 */
function indexTypes(analyzer: Analyzer, goPaths: string[]): TypeIndex {
  const index = new TypeIndex();
  const seen = new Set<string>();
  const add = (path: string): void => {
    if (seen.has(path) || seen.size >= MAX_TYPE_FILES) return;
    seen.add(path);
    try {
      const text = readFileSync(path, 'utf8');
      if (!text.includes('struct')) return;
      const file = analyzer.parseGo(path, text);
      index.addFile(file.root, path.endsWith('_types.go'));
      file.tree.delete();
    } catch {
      // unreadable files contribute nothing
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

export function toSarif(findings: Finding[], rel: (f: string) => string = (f) => f): object {
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
