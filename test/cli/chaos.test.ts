import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { run } from '../../src/cli/chaos';
import { capture as captureRun } from './capture';

const SAMPLE = join(__dirname, '..', '..', 'samples/quota-operator');

const capture = (argv: string[]) => captureRun(run, argv);

test('chaos without --reconciler or with a bad --seed is a usage error', async () => {
  assert.equal((await capture([])).code, 2);
  const seed = await capture(['--reconciler', 'x.ts', '--seed', '1.5']);
  assert.equal(seed.code, 2);
  assert.match(seed.err, /--seed must be a whole number/);
});

test('chaos --json on the sample prints the baseline and a case per fault class; exit 1 as some do not converge', async () => {
  const r = await capture([
    '--reconciler',
    join(SAMPLE, 'reconcilers/webapp.reconciler.ts'),
    '--manifests',
    join(SAMPLE, 'config'),
    '--duration',
    '2m',
    '--in-process',
    '--json',
  ]);
  const doc = JSON.parse(r.out) as {
    baseline: Record<string, unknown>;
    cases: Array<Record<string, unknown>>;
  };
  assert.deepEqual(Object.keys(doc), ['baseline', 'cases']);
  assert.deepEqual(Object.keys(doc.cases[0]), [
    'fault',
    'converged',
    'timeToConvergeMs',
    'reconciles',
    'apiCalls',
    'findings',
    'diff',
  ]);
  assert.equal(doc.cases.length, 9);
  // The sample's twin returns its healthy status write's error, as its Go controller does: a 5xx
  // on status is retried and ridden out, and so is a single conflict on write.
  const converged = (fault: string) => doc.cases.find((c) => c.fault === fault)?.converged;
  assert.equal(converged('status-500'), true);
  assert.equal(converged('write-conflict'), true);
  assert.equal(r.code, doc.cases.every((c) => c.converged) ? 0 : 1);
  assert.equal(r.code, 1);
});
