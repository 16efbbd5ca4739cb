/**
 * TypeScript reconciler analysis: parse with the TypeScript compiler's parser (syntax only), find
 * reconcile functions, run the rules that apply to the runtime's client API.
 */
import type { Finding } from '../diagnostics';
import { ruleMeta } from '../rules';
import { LineIndex } from '../text';
import { findTsReconcilers, parseTs } from './reconcilers';
import type { TsRule } from './rule';
import { tsBlockingSleep } from './rules/blocking-sleep';
import { tsResultWithError } from './rules/result-with-error';
import { tsSpecWrite } from './rules/spec-write';
import { tsStatusErrorIgnored } from './rules/status-error-ignored';
import { tsUnscopedList } from './rules/unscoped-list';

export const TS_RULES: TsRule[] = [
  tsSpecWrite,
  tsStatusErrorIgnored,
  tsUnscopedList,
  tsResultWithError,
  tsBlockingSleep,
];

export function analyzeTypeScript(path: string, text: string): Finding[] {
  // Cheap gate: a module without a `reconcile` function has nothing for us.
  if (!text.includes('reconcile')) return [];
  const sf = parseTs(path, text);
  const reconcilers = findTsReconcilers(sf);
  if (reconcilers.length === 0) return [];
  const lines = new LineIndex(text);
  const out = new Map<string, Finding>();
  for (const rule of TS_RULES) {
    rule.check({
      sf,
      reconcilers,
      report(node, message, fixes = []) {
        const start = node.getStart(sf);
        const key = `${start}:${node.end}:${rule.id}`;
        if (out.has(key)) return;
        out.set(key, {
          file: path,
          rule: rule.id,
          severity: ruleMeta(rule.id)?.defaultSeverity ?? 'warning',
          message,
          range: lines.range(start, node.end),
          fixes: fixes.map((f) => ({
            title: f.title,
            edits: f.edits.map((e) => ({ range: lines.range(e.start, e.end), newText: e.newText })),
          })),
        });
      },
    });
  }
  return [...out.values()];
}
