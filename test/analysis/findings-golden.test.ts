/**
 * The findings on the project's own Go inputs, pinned line by line: the bundled sample operator
 * and every test fixture, alone and as one package. Speed work on the analyzer (the tree copy, the
 * rules' walks) must leave these exactly as they are; a change here must be a rule change, made on
 * purpose.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import type { Finding } from '../../src/analysis/diagnostics';
import { lintPaths } from '../../src/cli/lint';
import { analyzer, fixture, FIXTURES } from './helpers';

const SAMPLE = join(__dirname, '..', '..', 'samples', 'quota-operator');

/** `rule file:line:col-line:col` (1-based lines and columns), in the order reported. */
function pinned(findings: Finding[], base = ''): string[] {
  return findings.map((f) => {
    const { start, end } = f.range;
    const file = base ? relative(base, f.file) : f.file;
    return `${f.rule} ${file}:${start.line + 1}:${start.character + 1}-${end.line + 1}:${end.character + 1}`;
  });
}

/**
 * The seed controller's reconciler repeated under distinct names (as bench/analysis.bench.ts
 * does): many reconcilers and helpers in one file.
 */
function repeatedSeed(copies: number): string {
  const seed = fixture('seed_controller.go');
  const at = seed.indexOf('type MyReconciler');
  let out = seed.slice(0, at);
  for (let i = 0; i < copies; i++)
    out += seed
      .slice(at)
      .replaceAll('MyReconciler', `R${i}Reconciler`)
      .replaceAll('buildDesiredDeployment', `build${i}`);
  return out;
}

describe('findings on the bundled inputs', () => {
  it('the sample operator (Go and TypeScript) gives exactly its pinned findings', async () => {
    const { findings } = await lintPaths([SAMPLE]);
    assert.deepEqual(pinned(findings, SAMPLE), EXPECTED_SAMPLE);
  });

  it('each fixture alone, and all of them as one package, give exactly their pinned findings', async () => {
    const a = await analyzer();
    const names = readdirSync(FIXTURES)
      .filter((n) => n.endsWith('.go'))
      .sort();
    const got: Record<string, string[]> = {};
    for (const n of names) {
      const file = a.parseGo(n, fixture(n));
      got[n] = pinned(a.analyzeGo([file]));
      file.tree.delete();
    }
    const all = names.map((n) => a.parseGo(n, fixture(n)));
    got['(package)'] = pinned(a.analyzeGo(all));
    for (const f of all) f.tree.delete();
    assert.deepEqual(got, EXPECTED_FIXTURES);
  });

  it('a file of many reconcilers gives exactly its pinned findings', async () => {
    const a = await analyzer();
    const file = a.parseGo('many.go', repeatedSeed(4));
    assert.deepEqual(pinned(a.analyzeGo([file])), EXPECTED_REPEATED);
    file.tree.delete();
  });
});

const EXPECTED_SAMPLE = [
  'update-unfetched internal/controller/webapp_controller.go:67:13-67:34',
  'status-error-ignored internal/controller/webapp_controller.go:71:9-71:37',
  'status-error-ignored reconcilers/webapp.reconciler.ts:53:11-55:25',
];

/** Every rule's pattern (fixtures/every_rule_controller.go). */
const EVERY_RULE = [
  'notfound-not-ignored every_rule_controller.go:48:25-48:28',
  'spec-write every_rule_controller.go:51:3-51:25',
  'unscoped-list every_rule_controller.go:57:12-57:30',
  'result-with-error every_rule_controller.go:58:10-58:48',
  'missing-owner-ref every_rule_controller.go:61:12-61:33',
  'forbidden-swallowed every_rule_controller.go:63:4-63:29',
  'blocking-sleep every_rule_controller.go:68:3-68:30',
  'observed-generation every_rule_controller.go:71:12-71:41',
  'observed-generation every_rule_controller.go:75:6-75:35',
  'repeated-status-update every_rule_controller.go:75:6-75:35',
  'status-error-ignored every_rule_controller.go:75:6-75:35',
  'repeated-status-update every_rule_controller.go:152:13-152:41',
  'result-with-error every_rule_controller.go:157:10-157:36',
  'missing-owner-ref every_rule_controller.go:164:12-164:30',
];

const SEED = [
  'update-unfetched seed_controller.go:44:13-44:34',
  'status-error-ignored seed_controller.go:48:9-48:36',
];

const EXPECTED_FIXTURES: Record<string, string[]> = {
  'every_rule_controller.go': EVERY_RULE,
  'kubebuilder_good_controller.go': [],
  'memcached_types.go': [],
  'scaffold_controller.go': [],
  'seed_controller.go': SEED,
  '(package)': [...EVERY_RULE, ...SEED],
};

const EXPECTED_REPEATED = [
  'update-unfetched many.go:44:13-44:34',
  'status-error-ignored many.go:48:9-48:36',
  'update-unfetched many.go:99:13-99:34',
  'status-error-ignored many.go:103:9-103:36',
  'update-unfetched many.go:154:13-154:34',
  'status-error-ignored many.go:158:9-158:36',
  'update-unfetched many.go:209:13-209:34',
  'status-error-ignored many.go:213:9-213:36',
];
