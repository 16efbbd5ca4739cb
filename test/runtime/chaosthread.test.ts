import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FAULT_CLASSES, chaos } from '../../src/runtime/chaos';
import { ChaosCancelled, runChaosInThread } from '../../src/runtime/chaosthread';
import { ROOT } from './helpers';

const SAMPLE = join(ROOT, 'samples/quota-operator');
const opts = {
  reconciler: join(SAMPLE, 'reconcilers/webapp.reconciler.ts'),
  manifests: [join(SAMPLE, 'config')],
  durationMs: 120_000,
};

test('the report run in its own thread is the report run here, with every run and its traces', async () => {
  const progress: Array<string | null> = [];
  const { report, runs } = await runChaosInThread(opts, {
    onRun: (fault, done, total) => {
      progress.push(fault);
      assert.equal(done, progress.length);
      assert.equal(total, FAULT_CLASSES.length + 1);
    },
  });
  assert.deepEqual(progress, [null, ...FAULT_CLASSES.map((c) => c.fault)]);
  assert.deepEqual(
    runs.map((r) => r.fault),
    progress,
  );
  assert.equal(runs[0].traces.length, report.baseline.reconciles);
  for (const c of report.cases)
    assert.equal(runs.find((r) => r.fault === c.fault)?.traces.length, c.reconciles, c.fault);
  const here = await chaos({ ...opts, isolate: false });
  assert.equal(JSON.stringify(report), JSON.stringify(here));
});

test('an abort stops the report between runs and rejects as cancelled', async () => {
  const ac = new AbortController();
  const seen: Array<string | null> = [];
  await assert.rejects(
    runChaosInThread(opts, {
      signal: ac.signal,
      onRun: (fault) => {
        seen.push(fault);
        ac.abort();
      },
    }),
    ChaosCancelled,
  );
  assert.ok(seen.length < FAULT_CLASSES.length + 1, `stopped after ${seen.length} runs`);
});
