import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FAULT_CLASSES, chaos } from '../../src/runtime/chaos';
import { ROOT } from './helpers';

const SAMPLE = join(ROOT, 'samples/quota-operator');
const opts = {
  reconciler: join(SAMPLE, 'reconcilers/webapp.reconciler.ts'),
  manifests: [join(SAMPLE, 'config')],
  durationMs: 120_000,
  isolate: false,
};

test('the report on the sample: a write conflict is ridden out, a quota refusal swallows the status write', async () => {
  const report = await chaos(opts);
  assert.deepEqual(
    report.cases.map((c) => c.fault),
    FAULT_CLASSES.map((c) => c.fault),
  );
  assert.ok(report.baseline.reconciles > 0 && report.baseline.apiCalls > 0);
  const byFault = new Map(report.cases.map((c) => [c.fault, c]));
  const conflict = byFault.get('write-conflict')!;
  assert.equal(conflict.converged, true, conflict.diff);
  assert.equal(conflict.diff, '');
  assert.ok(conflict.timeToConvergeMs !== null);
  assert.ok(conflict.apiCalls > report.baseline.apiCalls, 'the conflict costs extra calls');
  // The sample's status write after a Forbidden ignores its error: the report says so.
  assert.ok(byFault.get('quota-exhausted')!.findings.includes('errors-swallowed'));
  // A stale cache leaves the WebApps' status behind the baseline's.
  const stale = byFault.get('stale-cache')!;
  assert.equal(stale.converged, false);
  assert.equal(stale.timeToConvergeMs, null);
  assert.ok(stale.findings.includes('lost-status'));
  assert.match(stale.diff, /WebApp default\/\w+: \.status\./);
});

test('the report is deterministic: two runs, the same JSON', async () => {
  const classes = FAULT_CLASSES.filter((c) => ['write-conflict', 'watch-410'].includes(c.fault));
  const a = await chaos({ ...opts, classes });
  const b = await chaos({ ...opts, classes });
  assert.equal(JSON.stringify(a), JSON.stringify(b));
});
