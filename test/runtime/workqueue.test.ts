import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from '../../src/util/clock';
import { WorkQueue } from '../../src/runtime/workqueue';
import { DelayingQueue } from '../../src/runtime/delayingqueue';
import { RateLimitingQueue } from '../../src/runtime/ratelimitingqueue';
import {
  ItemExponentialFailureRateLimiter,
  defaultControllerRateLimiter,
} from '../../src/runtime/ratelimiter';
import { Registry, WorkqueueMetrics } from '../../src/runtime/metrics';

test('items come out in FIFO order and repeated adds coalesce', () => {
  const q = new WorkQueue<string>({ clock: new VirtualClock() });
  q.add('a');
  q.add('b');
  q.add('a');
  assert.equal(q.len(), 2);
  assert.equal(q.tryGet(), 'a');
  assert.equal(q.tryGet(), 'b');
  assert.equal(q.tryGet(), undefined);
});

test('a key re-added while processing is processed again only after done', () => {
  const q = new WorkQueue<string>({ clock: new VirtualClock() });
  q.add('a');
  assert.equal(q.tryGet(), 'a');
  q.add('a');
  assert.equal(q.len(), 0, 'not handed to a second worker while processing');
  assert.equal(q.tryGet(), undefined);
  q.done('a');
  assert.equal(q.len(), 1);
  assert.equal(q.tryGet(), 'a');
  q.done('a');
  assert.equal(q.tryGet(), undefined);
});

test('several adds during processing produce exactly one more pass', () => {
  const q = new WorkQueue<string>({ clock: new VirtualClock() });
  q.add('a');
  q.tryGet();
  q.add('a');
  q.add('a');
  q.done('a');
  assert.deepEqual(q.queued(), ['a']);
});

test('get waits for an add and wakes workers in order', async () => {
  const q = new WorkQueue<string>({ clock: new VirtualClock() });
  const got: string[] = [];
  const w1 = q.get().then((r) => got.push(`w1:${r.item}`));
  const w2 = q.get().then((r) => got.push(`w2:${r.item}`));
  q.add('x');
  q.add('y');
  await Promise.all([w1, w2]);
  assert.deepEqual(got, ['w1:x', 'w2:y']);
});

test('shutdown wakes waiting workers with shutdown=true and ignores later adds', async () => {
  const q = new WorkQueue<string>({ clock: new VirtualClock() });
  const p = q.get();
  q.shutDown();
  assert.deepEqual(await p, { item: undefined, shutdown: true });
  q.add('late');
  assert.equal(q.len(), 0);
});

test('after shutdown queued items are still handed out, then shutdown is reported', async () => {
  const q = new WorkQueue<string>({ clock: new VirtualClock() });
  q.add('a');
  q.shutDown();
  assert.deepEqual(await q.get(), { item: 'a', shutdown: false });
  assert.deepEqual(await q.get(), { item: undefined, shutdown: true });
});

test('shutDownWithDrain resolves only once processing items are done', async () => {
  const q = new WorkQueue<string>({ clock: new VirtualClock() });
  q.add('a');
  q.tryGet();
  let drained = false;
  const p = q.shutDownWithDrain().then(() => (drained = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(drained, false);
  q.done('a');
  await p;
  assert.equal(drained, true);
});

test('metrics count adds, depth, queue latency and work duration on the clock', async () => {
  const clock = new VirtualClock();
  const reg = new Registry();
  const m = new WorkqueueMetrics(reg);
  const q = new WorkQueue<string>({ clock, name: 'c', metrics: m });
  q.add('a');
  q.add('a');
  q.add('b');
  assert.equal(m.adds.get({ name: 'c' }), 2);
  assert.equal(m.depth.get({ name: 'c' }), 2);
  await clock.advance(250);
  q.tryGet();
  await clock.advance(1000);
  q.done('a');
  assert.equal(m.depth.get({ name: 'c' }), 1);
  assert.equal(m.latency.sum({ name: 'c' }), 0.25);
  assert.equal(m.workDuration.sum({ name: 'c' }), 1);
  assert.match(reg.toPrometheusText(), /workqueue_adds_total\{name="c"\} 2/);
});

test('addAfter makes the item available exactly at its due time', async () => {
  const clock = new VirtualClock();
  const q = new DelayingQueue<string>({ clock });
  q.addAfter('a', 30_000, { kind: 'requeueAfter' });
  await clock.advance(29_999);
  assert.equal(q.len(), 0);
  assert.equal(q.waiting()[0].readyAt, 30_000);
  await clock.advance(1);
  assert.equal(q.len(), 1);
  assert.equal(clock.now(), 30_000);
});

test('delaying queue: an earlier addAfter wins, a later one does not postpone', async () => {
  const clock = new VirtualClock();
  const q = new DelayingQueue<string>({ clock });
  q.addAfter('a', 1000);
  q.addAfter('a', 5000);
  assert.equal(q.readyAt('a'), 1000);
  q.addAfter('a', 200);
  assert.equal(q.readyAt('a'), 200);
  await clock.advance(200);
  assert.deepEqual(q.queued(), ['a']);
  await clock.advance(10_000);
  assert.deepEqual(q.queued(), ['a'], 'only added once');
});

test('delaying queue: items become ready in due order with one timer', async () => {
  const clock = new VirtualClock();
  const q = new DelayingQueue<string>({ clock });
  q.addAfter('c', 300);
  q.addAfter('a', 100);
  q.addAfter('b', 200);
  assert.equal(clock.pendingTimers, 1);
  await clock.advance(1000);
  assert.deepEqual(q.queued(), ['a', 'b', 'c']);
});

test('addAfter with a non-positive delay adds at once and counts a retry', () => {
  const reg = new Registry();
  const m = new WorkqueueMetrics(reg);
  const q = new DelayingQueue<string>({ clock: new VirtualClock(), name: 'n', metrics: m });
  q.addAfter('a', 0);
  assert.deepEqual(q.queued(), ['a']);
  assert.equal(m.retries.get({ name: 'n' }), 1);
});

test('rate-limiting queue: addRateLimited backs off 5, 10, 20 ms and forget resets', async () => {
  const clock = new VirtualClock();
  const q = new RateLimitingQueue<string>(
    { clock },
    new ItemExponentialFailureRateLimiter<string>(5, 1_000_000),
  );
  const delays: number[] = [];
  for (let i = 0; i < 3; i++) {
    delays.push(q.addRateLimited('a'));
    await clock.advance(delays[i]);
    assert.equal(q.tryGet(), 'a');
    q.done('a');
  }
  assert.deepEqual(delays, [5, 10, 20]);
  assert.equal(q.numRequeues('a'), 3);
  q.forget('a');
  assert.equal(q.numRequeues('a'), 0);
  assert.equal(q.addRateLimited('a'), 5);
  assert.deepEqual(q.waiting()[0].reason, { kind: 'backoff', attempt: 1 });
});

test('rate-limiting queue: a wait says whether the backoff or the token bucket chose it', () => {
  const clock = new VirtualClock();
  const q = new RateLimitingQueue<string>({ clock }, defaultControllerRateLimiter<string>(clock));
  assert.deepEqual(q.whenRateLimited('a'), { delayMs: 5, reason: { kind: 'backoff', attempt: 1 } });
  // Spend the bucket's burst on other keys: the next delay is the bucket's.
  for (let i = 0; i < 200; i++) q.whenRateLimited(`other${i}`);
  const { delayMs, reason } = q.whenRateLimited('a');
  assert.ok(delayMs > 10);
  assert.deepEqual(reason, { kind: 'rate-limit' });
  q.addRateLimited('b');
  assert.deepEqual(q.waiting().find((w) => w.item === 'b')?.reason, { kind: 'rate-limit' });
});

test('shutdown stops the delaying timer and drops waiting items', async () => {
  const clock = new VirtualClock();
  const q = new DelayingQueue<string>({ clock });
  q.addAfter('a', 100);
  q.shutDown();
  assert.equal(clock.pendingTimers, 0);
  q.addAfter('b', 100);
  await clock.advance(1000);
  assert.equal(q.len(), 0);
});

test('addedAt is the first add of a queued item; takenAddedAt is that time while it processes', async () => {
  const clock = new VirtualClock();
  const q = new WorkQueue<string>({ clock });
  q.add('a');
  await clock.advance(5);
  q.add('a'); // coalesced: the first add's time stays
  assert.equal(q.addedAt('a'), 0);
  await clock.advance(5);
  assert.equal(q.tryGet(), 'a');
  assert.equal(q.addedAt('a'), undefined, 'no longer queued');
  assert.equal(q.takenAddedAt('a'), 0);
  q.add('a'); // dirty while processing: a new wait starts now
  assert.equal(q.addedAt('a'), 10);
  q.done('a');
  assert.equal(q.takenAddedAt('a'), undefined);
  assert.equal(q.tryGet(), 'a');
  assert.equal(q.takenAddedAt('a'), 10);
  q.done('a');
  assert.equal(q.isProcessing('a'), false);
  assert.equal(q.isDirty('a'), false);
  assert.equal(q.addedAt('a'), undefined);
});

test('processing lists held items with the time they were taken; done of an item not held changes nothing', async () => {
  const clock = new VirtualClock();
  const q = new WorkQueue<string>({ clock });
  q.add('a');
  q.add('b');
  q.tryGet();
  await clock.advance(3);
  q.tryGet();
  assert.deepEqual(q.processing(), [
    { item: 'a', since: 0 },
    { item: 'b', since: 3 },
  ]);
  assert.equal(q.processingCount(), 2);
  q.add('c');
  q.done('c'); // queued, never taken: stays queued, not pushed twice
  q.done('zz');
  assert.deepEqual(q.queued(), ['c']);
  assert.equal(q.processingCount(), 2);
  q.done('a');
  assert.deepEqual(q.processing(), [{ item: 'b', since: 3 }]);
});

test('each taken item keeps its own queued time until done, whatever is taken or re-added around it', async () => {
  const clock = new VirtualClock();
  const q = new WorkQueue<string>({ clock });
  q.add('a');
  await clock.advance(1);
  q.add('b');
  assert.equal(q.tryGet(), 'a');
  assert.equal(q.tryGet(), 'b');
  assert.equal(q.takenAddedAt('a'), 0, 'not the item taken last');
  assert.equal(q.takenAddedAt('b'), 1);
  q.done('b');
  assert.equal(q.takenAddedAt('b'), undefined);
  assert.equal(q.takenAddedAt('a'), 0);
  q.done('a');
  await clock.advance(1);
  q.add('b'); // a new record, queued and not taken
  assert.equal(q.takenAddedAt('b'), undefined);
  q.done('b'); // not held: changes nothing
  assert.deepEqual(q.queued(), ['b']);
  assert.equal(q.tryGet(), 'b');
  assert.equal(q.takenAddedAt('b'), 2);
  q.done('b');
  assert.equal(q.processingCount(), 0);
  assert.deepEqual(q.queued(), []);
});

test("an item's causes are kept with it for the pass that handles it, then the next pass starts afresh", () => {
  const q = new WorkQueue<string, number>({ clock: new VirtualClock() });
  q.add('a', 1);
  q.add('a', 2); // coalesced: one pass, both causes
  q.add('b');
  assert.equal(q.tryGet(), 'a');
  q.add('a', 3); // while processing: the next pass's cause
  assert.deepEqual(q.takenCauses('a'), [1, 2]);
  assert.equal(q.tryGet(), 'b');
  assert.equal(q.takenCauses('b'), undefined, 'added without a cause');
  assert.deepEqual(q.takenCauses('a'), [1, 2], 'not the item taken last');
  q.done('a');
  assert.equal(q.takenCauses('a'), undefined);
  assert.equal(q.tryGet(), 'a');
  assert.deepEqual(q.takenCauses('a'), [3]);
  q.done('a');
  q.add('a');
  assert.equal(q.tryGet(), 'a');
  assert.equal(q.takenCauses('a'), undefined, 'a done pass leaves nothing behind');
});

test('an item keeps at most maxCauses causes per pass', () => {
  const q = new WorkQueue<string, number>({ clock: new VirtualClock() });
  for (let i = 0; i < 30; i++) q.add('a', i);
  q.tryGet();
  assert.deepEqual(
    q.takenCauses('a'),
    Array.from({ length: 20 }, (_, i) => i),
  );
  const none = new WorkQueue<string, number>({ clock: new VirtualClock(), maxCauses: 0 });
  none.add('a', 1);
  none.add('a', 2);
  none.tryGet();
  assert.equal(none.takenCauses('a'), undefined);
});

test('delaying queue: a waiting item is added with the cause of its earliest ready time', async () => {
  const clock = new VirtualClock();
  const q = new DelayingQueue<string, string>({ clock });
  q.addAfter('a', 1000, { kind: 'delay' }, 'first');
  q.addAfter('a', 5000, { kind: 'delay' }, 'later: does not postpone, its cause is dropped');
  q.addAfter('b', 0, { kind: 'delay' }, 'at once');
  assert.equal(q.tryGet(), 'b');
  assert.deepEqual(q.takenCauses('b'), ['at once']);
  q.addAfter('a', 200, { kind: 'requeueAfter' }, 'earlier: wins');
  await clock.advance(200);
  assert.equal(q.tryGet(), 'a');
  assert.deepEqual(q.takenCauses('a'), ['earlier: wins']);
});
