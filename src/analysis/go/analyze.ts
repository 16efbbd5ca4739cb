/**
 * Runs every Go rule over one package and turns their reports into Findings. A helper reached
 * from two reconcilers is checked twice, so identical findings are merged here.
 */
import type { Finding } from '../diagnostics';
import { ruleMeta } from '../rules';
import { GoPackage, type GoFile, type TypeIndex } from './package';
import { findReconcilers } from './reconcilers';
import type { GoRule, GoReport } from './rule';
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

export interface GoAnalyzeOptions {
  /** struct types from outside the package (API types); defaults to the package's own */
  types?: TypeIndex;
  /** run only these rules */
  rules?: ReadonlySet<string>;
  /** report only findings in these files (the rest of the package is context) */
  reportFiles?: ReadonlySet<string>;
}

export function analyzeGoPackage(files: GoFile[], options: GoAnalyzeOptions = {}): Finding[] {
  const pkg = new GoPackage(files, options.types);
  const reconcilers = findReconcilers(pkg);
  if (reconcilers.length === 0) return [];
  const out = new Map<string, Finding>();
  for (const rule of GO_RULES) {
    if (options.rules && !options.rules.has(rule.id)) continue;
    const report = (r: GoReport): void => {
      if (options.reportFiles && !options.reportFiles.has(r.file.path)) return;
      const [start, end] = r.span ?? [r.node.startIndex, r.node.endIndex];
      const finding: Finding = {
        file: r.file.path,
        rule: rule.id,
        severity: ruleMeta(rule.id)?.defaultSeverity ?? 'warning',
        message: r.message,
        range: r.file.lines.range(start, end),
        fixes: r.fixes ?? [],
      };
      const key = `${finding.file}:${start}:${end}:${rule.id}`;
      if (!out.has(key)) out.set(key, finding);
    };
    rule.check({ pkg, reconcilers, report });
  }
  return [...out.values()];
}
