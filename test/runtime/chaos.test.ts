import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { INJECTED_QUOTA } from '../../src/cluster/faults';
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
  // A 5xx on status meets the healthy path's status write, whose error the sample returns (as its
  // Go controller and the seed do): retried, and ridden out, with nothing swallowed or lost.
  const status500 = byFault.get('status-500')!;
  assert.equal(status500.converged, true, status500.diff);
  assert.deepEqual(status500.findings, []);
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

test('a 5xx on the status write the sample swallows (after a quota refusal) is reported as lost status', async () => {
  const runs: Array<string | null> = [];
  const report = await chaos({
    ...opts,
    classes: [
      {
        fault: 'quota-then-status-500',
        rules: [
          {
            name: 'quota',
            match: { verb: 'update', resource: 'deployments' },
            times: 1,
            error: { code: 403, quota: INJECTED_QUOTA },
            line: 0,
          },
          {
            name: 'status-500',
            match: { verb: 'update', subresource: 'status' },
            times: 1,
            error: { code: 500 },
            line: 0,
          },
        ],
      },
    ],
    onRun: (fault, run) => {
      runs.push(fault);
      assert.ok(run.traces.length > 0, 'each run is handed over with its traces');
    },
  });
  assert.deepEqual(runs, [null, 'quota-then-status-500']);
  const [c] = report.cases;
  assert.ok(c.findings.includes('lost-status'), c.findings.join(', '));
  assert.ok(c.findings.includes('errors-swallowed'), c.findings.join(', '));
});
