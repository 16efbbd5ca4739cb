/**
 * Regression fixtures, one Go file per shape under fixtures/shapes/: the file's first line names
 * the rules it checks (`// shape checks: a, b`), and each line a rule must flag ends with
 * `// want <rule>`. A file with no `want` is a negative: those rules must stay silent on it.
 * A sub-folder is one Go module (go.mod and its packages), linted whole as the CLI lints it.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { lintPaths } from '../../src/cli/lint';
import type { Finding } from '../../src/analysis/diagnostics';
import { findings, FIXTURES } from './helpers';

const SHAPES = join(FIXTURES, 'shapes');

/** `file:line rule` for every `// want` marker of the rules the file checks. */
function wanted(path: string, text: string): { rules: Set<string>; want: string[] } {
  const header = /^\/\/ shape checks: (.+)$/m.exec(text);
  const rules = new Set((header?.[1] ?? '').split(',').map((r) => r.trim()));
  const want: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(/\/\/ want ([a-z-]+)/g)) want.push(`${path}:${i + 1} ${m[1]}`);
  });
  return { rules, want };
}

function got(fs: Finding[], rules: Set<string>, rel: (f: string) => string): string[] {
  return fs
    .filter((f) => rules.has(f.rule))
    .map((f) => `${rel(f.file)}:${f.range.start.line + 1} ${f.rule}`);
}

function goFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return goFiles(p);
    return n.endsWith('.go') ? [p] : [];
  });
}

describe('shapes', () => {
  for (const name of readdirSync(SHAPES).sort()) {
    const path = join(SHAPES, name);
    if (statSync(path).isDirectory()) {
      it(`${name} (a module)`, async () => {
        const rel = (f: string): string => relative(path, f);
        const files = goFiles(path);
        const rules = new Set<string>();
        const want: string[] = [];
        for (const f of files) {
          const w = wanted(rel(f), readFileSync(f, 'utf8'));
          w.rules.forEach((r) => rules.add(r));
          want.push(...w.want);
        }
        const { findings: fs } = await lintPaths([path]);
        assert.deepEqual(got(fs, rules, rel).sort(), want.sort());
      });
    } else if (name.endsWith('.go')) {
      it(name.replace(/\.go$/, '').replace(/_/g, ' '), async () => {
        const text = readFileSync(path, 'utf8');
        const { rules, want } = wanted(name, text);
        assert.deepEqual(
          got(await findings(text, name), rules, () => name),
          want,
        );
      });
    }
  }
});
