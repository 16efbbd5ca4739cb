/** The hot-loop guard: a key that keeps triggering itself is reported and, when pausing, suspended. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HotLoopGuard } from '../../src/runtime/hotloopguard';
import { finishedReconcile } from './helpers';

/** A finished reconcile of `key` that wrote, triggered by its own previous write. */
const selfTriggered = (key: string, id: number) => finishedReconcile(key, id, true, id);

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
