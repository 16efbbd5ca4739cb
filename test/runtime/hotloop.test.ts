/** Hot-loop detection's counts: what it keeps per key, and for how long. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HotLoopDetector } from '../../src/runtime/hotloop';
import { finishedReconcile } from './helpers';

/** A pass of `key`; `self`: triggered by its own write, and wrote again. */
const pass = (key: string, id: number, self: boolean) => finishedReconcile(key, id, self);

describe('HotLoopDetector', () => {
  it('forgets keys with no streak and no pass in the last second, once it counts many keys', () => {
    const d = new HotLoopDetector();
    let id = 0;
    for (let i = 0; i < 3000; i++) d.observe(`old-${i}`, pass(`old-${i}`, ++id, false), 0);
    // Within the same second nothing can be dropped: every key may still make a rate report.
    assert.equal(d.size, 3000);
    // One key keeps a self-triggered streak going: it is kept whatever its age.
    d.observe('streak', pass('streak', ++id, true), 0);
    for (let i = 0; i < 5000; i++) d.observe(`new-${i}`, pass(`new-${i}`, ++id, false), 5000);
    // The old keys are gone; the new ones and the streak are kept.
    assert.equal(d.size, 5000 + 1);
    // The streak goes on where it was: 19 more self-triggered passes make a report of 20.
    let report;
    for (let i = 0; i < 19; i++) report = d.observe('streak', pass('streak', ++id, true), 6000);
    assert.equal(report?.reason, 'self-triggered');
    assert.equal(report?.reconciles, 20);
  });

  it('counts a key’s first pass with the ones after it, and afresh after a report', () => {
    const d = new HotLoopDetector({ maxPerSecond: 2, threshold: 20 });
    assert.equal(d.observe('k', pass('k', 1, false), 0), undefined);
    assert.equal(d.observe('k', pass('k', 2, false), 10), undefined);
    const report = d.observe('k', pass('k', 3, false), 20);
    assert.equal(report?.reason, 'rate');
    assert.equal(report?.reconciles, 3);
    assert.deepEqual(report?.traceIds, [1, 2, 3]);
    // The rate counts from the report on; the trace ids named go on from the last ones.
    assert.equal(d.observe('k', pass('k', 4, false), 30), undefined);
    assert.equal(d.observe('k', pass('k', 5, false), 40), undefined);
    assert.deepEqual(d.observe('k', pass('k', 6, false), 50)?.traceIds, [1, 2, 3, 4, 5, 6]);
    // A single pass more than a second old no longer counts.
    assert.equal(d.observe('j', pass('j', 7, false), 0), undefined);
    assert.equal(d.observe('j', pass('j', 8, false), 1500), undefined);
    assert.equal(d.observe('j', pass('j', 9, false), 1600), undefined);
    assert.equal(d.observe('j', pass('j', 10, false), 1700)?.reconciles, 3);
  });

  it('reports the same after a sweep as without one', () => {
    // A key reconciled long ago, then in a burst: the rate report names the burst's passes only.
    const d = new HotLoopDetector({ maxPerSecond: 30, threshold: 20 });
    d.observe('k', pass('k', 1, false), 0);
    let id = 1;
    for (let i = 0; i < 2000; i++) d.observe(`other-${i}`, pass(`other-${i}`, ++id, false), 2000);
    let report;
    const burst: number[] = [];
    for (let i = 0; i < 31 && !report; i++) {
      burst.push(++id);
      report = d.observe('k', pass('k', id, false), 3000);
    }
    assert.equal(report?.reason, 'rate');
    assert.equal(report?.reconciles, 31);
    assert.deepEqual(report?.traceIds, burst.slice(-20));
  });

  it('keeps every count when a rate report could name passes older than a second', () => {
    // maxPerSecond + 1 < threshold: a report of 6 passes names up to 20, older ones included.
    const d = new HotLoopDetector({ maxPerSecond: 5, threshold: 20 });
    for (let i = 0; i < 3000; i++)
      d.observe(`k-${i}`, pass(`k-${i}`, i + 1, false), i < 1500 ? 0 : 9000);
    assert.equal(d.size, 3000);
  });
});
