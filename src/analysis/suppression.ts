/**
 * `//reconcile-studio:ignore <rule>[,<rule>…] <reason>` (or `// reconcile-studio:ignore ...`)
 * silences a rule on its own line or on the line below. `all` silences every rule. The reason is
 * for the reader; we accept a missing one rather than surprise, but the docs ask for it.
 */
import type { Finding } from './diagnostics';

const DIRECTIVE = /\/\/\s*reconcile-studio:ignore\s+([\w,-]+)/g;

/** line (0-based) → rules silenced there */
export function suppressions(text: string): Map<number, Set<string>> {
  const out = new Map<number, Set<string>>();
  if (!text.includes('reconcile-studio:ignore')) return out;
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    for (const m of line.matchAll(DIRECTIVE)) {
      const rules = m[1].split(',').filter(Boolean);
      // A directive alone on its line covers the next line; a trailing one covers its own.
      const target = line.trim().startsWith('//') ? i + 1 : i;
      const set = out.get(target) ?? new Set<string>();
      for (const r of rules) set.add(r);
      out.set(target, set);
    }
  });
  return out;
}

export function isSuppressed(f: Finding, map: Map<number, Set<string>>): boolean {
  const set = map.get(f.range.start.line);
  return !!set && (set.has(f.rule) || set.has('all'));
}
