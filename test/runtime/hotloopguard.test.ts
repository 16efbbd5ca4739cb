/** The hot-loop guard: a key that keeps triggering itself is reported and, when pausing, suspended. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HotLoopGuard } from '../../src/runtime/hotloopguard';
import type { ReconcileTrace } from '../../src/runtime/trace';

/** A finished reconcile of `key` that wrote, triggered by its own previous write. */
function selfTriggered(key: string, id: number): ReconcileTrace {
  return {
    id,
    reconcileID: String(id),
    controller: 'c',
    request: { namespace: 'default', name: key },
    key,
    worker: 1,
    triggers: [{ at: id, kind: 'event', selfTriggered: true }],
    start: id,
    phases: [],
    calls: [
      {
        verb: 'update',
        resource: 'configmaps',
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: 'default',
        name: key,
        subresource: '',
        code: 200,
        source: 'server',
        at: id,
      },
    ],
    warnings: [],
  };
}

describe('HotLoopGuard', () => {
  it('suspends a key after `threshold` self-triggered passes, until it is resumed', () => {
    const guard = new HotLoopGuard({ threshold: 3 });
    assert.equal(guard.observe('k', selfTriggered('k', 1), 1000), undefined);
    assert.equal(guard.observe('k', selfTriggered('k', 2), 2000), undefined);
    const report = guard.observe('k', selfTriggered('k', 3), 3000);
    assert.equal(report?.reason, 'self-triggered');
    assert.equal(report?.suspended, true);
    assert.deepEqual(report?.traceIds, [1, 2, 3]);
    assert.equal(guard.isSuspended('k'), true);
    assert.deepEqual(guard.suspendedKeys(), ['k']);
    assert.deepEqual(guard.reports, [report]);
    guard.resume('k');
    assert.equal(guard.isSuspended('k'), false);
    // Counted afresh after resume: two more passes are not yet a loop.
    assert.equal(guard.observe('k', selfTriggered('k', 4), 4000), undefined);
    assert.equal(guard.observe('k', selfTriggered('k', 5), 5000), undefined);
  });

  it('only reports when told to', () => {
    const guard = new HotLoopGuard({ threshold: 1, action: 'report' });
    const report = guard.observe('k', selfTriggered('k', 1), 0);
    assert.equal(report?.suspended, false);
    assert.equal(guard.isSuspended('k'), false);
    assert.equal(guard.reports.length, 1);
  });
});
