/**
 * Runs every Go rule over one package and turns their reports into Findings. A helper reached
 * from two reconcilers is checked twice, so identical findings are merged here.
 *
 * Rules run one reconciler at a time, and the server keeps each reconciler's reports in a cache
 * along with every package lookup made while producing them (which helper a call resolved to,
 * which struct a type name meant). After an edit, a reconciler whose functions were not touched
 * (tree.ts reuses their nodes) and whose lookups still give the same answers is not re-analyzed:
 * its reports are published again, at their new offsets.
 */
import type { Finding } from '../diagnostics';
import { ruleMeta } from '../rules';
import { GoPackage, type GoFile, type ModuleFuncs, type TypeIndex } from './package';
import { buildReconciler, MAX_PATH_FUNCS, reconcileRoots, type Reconciler } from './reconcilers';
import type { GoRule, GoReport, GoRuleContext } from './rule';
import { statedIntent } from './intent';
import { Summaries } from './summary';
import { dirname } from 'node:path';
import { blockingSleep } from './rules/blocking-sleep';
import { forbiddenSwallowed } from './rules/forbidden-swallowed';
import { missingOwnerRef } from './rules/missing-owner-ref';
import { notfoundNotIgnored } from './rules/notfound-not-ignored';
import { observedGeneration } from './rules/observed-generation';
import { repeatedStatusUpdate } from './rules/repeated-status-update';
import { resultWithError } from './rules/result-with-error';
import { specWrite } from './rules/spec-write';
import { statusErrorIgnored } from './rules/status-error-ignored';
import { unscopedList } from './rules/unscoped-list';
import { updateUnfetched } from './rules/update-unfetched';

export const GO_RULES: GoRule[] = [
  specWrite,
  statusErrorIgnored,
  unscopedList,
  repeatedStatusUpdate,
  resultWithError,
  notfoundNotIgnored,
  updateUnfetched,
  blockingSleep,
  observedGeneration,
  missingOwnerRef,
  forbiddenSwallowed,
];

interface RuleReport extends GoReport {
  rule: string;
}

interface CachedReconciler {
  rec: Reconciler;
  /** package lookups made while analyzing it, with their answers */
  deps: Map<string, string>;
  reports: RuleReport[];
}

/** Per-document memory of reconciler analyses, keyed by the Reconcile declaration node. */
export class GoAnalysisCache {
  entries = new Map<number, CachedReconciler>();
}

export interface GoAnalyzeOptions {
  /** struct types from outside the package (API types); defaults to the package's own */
  types?: TypeIndex;
  /** run only these rules */
  rules?: ReadonlySet<string>;
  /** report only findings in these files (the rest of the package is context) */
  reportFiles?: ReadonlySet<string>;
  cache?: GoAnalysisCache;
  /** the rest of the Go module, for calls into its other packages */
  module?: ModuleFuncs;
  /** at most this many functions per reconciler path (tests lower it); see MAX_PATH_FUNCS */
  maxPathFuncs?: number;
  /**
   * Told, in one line, when a bound cut an analysis short: which reconciler, and the function
   * whose call was not followed. Findings past that point are missing, and the user should know.
   */
  log?: (line: string) => void;
}

function analyzeReconciler(
  pkg: GoPackage,
  summaries: Summaries,
  decl: Parameters<typeof buildReconciler>[1],
  request: string,
  rules: GoRule[],
  options: GoAnalyzeOptions,
): CachedReconciler | null {
  const deps = new Map<string, string>();
  pkg.recorder = deps;
  try {
    const rec = buildReconciler(pkg, decl, request, options.maxPathFuncs);
    if (!rec) return null;
    if (rec.stoppedAt) options.log?.(limitMessage(rec, options.maxPathFuncs ?? MAX_PATH_FUNCS));
    const reports: RuleReport[] = [];
    // One context for every rule, told which rule is reporting (not a closure per rule).
    let id = '';
    const ctx: GoRuleContext = {
      pkg,
      summaries,
      reconcilers: [rec],
      report: (r: GoReport): void => {
        // The code says it is so on purpose: not reported (intent.ts).
        if (INTENT_RULES.has(id) && statedIntent(r.file, r.node)) return;
        reports.push({ ...r, rule: id });
      },
    };
    for (const rule of rules) {
      id = rule.id;
      rule.check(ctx);
    }
    return { rec, deps, reports };
  } finally {
    pkg.recorder = null;
  }
}

/** `controller.go:42: analysis of WebAppReconciler.Reconcile stopped at ...` */
function limitMessage(rec: Reconciler, limit: number): string {
  const at = rec.stoppedAt!;
  const line = at.fn.file.lines.range(at.call.startIndex, at.call.startIndex).start.line + 1;
  const where = (fn: Reconciler['root']): string =>
    fn.decl.receiverType ? `${fn.decl.receiverType}.${fn.decl.name}` : fn.decl.name;
  return `${at.fn.file.path}:${line}: analysis of ${where(rec.root)} stopped at ${where(at.fn)}: its call of ${at.target} was not followed, because the path already has ${limit} functions; findings in functions reached only from there are missing.`;
}

/**
 * Rules whose findings a comment stating intent silences: each reports a choice an author can make
 * on purpose (dropping a status write's error, writing the spec, listing across namespaces,
 * writing status twice). The rest report what is a mistake however it is commented.
 */
const INTENT_RULES = new Set([
  'status-error-ignored',
  'spec-write',
  'unscoped-list',
  'repeated-status-update',
]);

export function analyzeGoPackage(files: GoFile[], options: GoAnalyzeOptions = {}): Finding[] {
  const pkg = new GoPackage(files, options.types);
  pkg.module = options.module ?? null;
  const homePath = (files[0] && pkg.module?.importPathOf(dirname(files[0].path))) ?? '';
  const summaries = new Summaries(pkg, homePath, pkg.module);
  const rules = options.rules ? GO_RULES.filter((r) => options.rules!.has(r.id)) : GO_RULES;
  const cache = options.rules ? undefined : options.cache;
  const byPath = new Map(files.map((f) => [f.path, f]));
  const next = new Map<number, CachedReconciler>();
  const reports: RuleReport[] = [];
  for (const { decl, request } of reconcileRoots(pkg)) {
    let entry = cache?.entries.get(decl.node.id);
    if (entry && pkg.answersLike(entry.deps, (key) => summaries.answer(key))) {
      // Same nodes, same answers: point its functions at this analysis's files and reuse.
      for (const fn of entry.rec.funcs) {
        const file = byPath.get(fn.file.path);
        if (file) {
          fn.file = file;
          fn.decl = { ...fn.decl, file };
        }
      }
    } else {
      entry = analyzeReconciler(pkg, summaries, decl, request, rules, options) ?? undefined;
    }
    if (!entry) continue;
    next.set(decl.node.id, entry);
    reports.push(...entry.reports);
  }
  if (cache) cache.entries = next;

  const out = new Map<string, Finding>();
  for (const r of reports) {
    const file = byPath.get(r.file.path) ?? r.file;
    if (options.reportFiles && !options.reportFiles.has(file.path)) continue;
    const [start, end] = r.span ?? [r.node.startIndex, r.node.endIndex];
    const key = `${file.path}:${start}:${end}:${r.rule}`;
    if (out.has(key)) continue;
    out.set(key, {
      file: file.path,
      rule: r.rule,
      severity: ruleMeta(r.rule)?.defaultSeverity ?? 'warning',
      message: r.message,
      range: file.lines.range(start, end),
      fixes: r.fixes ? r.fixes() : [],
    });
  }
  // Report in rule-registry order within a position, as before caching.
  return [...out.values()];
}
