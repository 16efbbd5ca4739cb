import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from '../../src/util/clock';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  TokenBucket,
  defaultControllerRateLimiter,
} from '../../src/runtime/ratelimiter';

test('backoff sequence is 5, 10, 20, 40 ms', () => {
  const rl = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
  assert.deepEqual([rl.when('a'), rl.when('a'), rl.when('a'), rl.when('a')], [5, 10, 20, 40]);
  assert.equal(rl.numRequeues('a'), 4);
  assert.equal(rl.when('b'), 5, 'per item');
});

test('exponential backoff is capped at 1000 s and survives exponent overflow', () => {
  const rl = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
  let last = 0;
  for (let i = 0; i < 2000; i++) last = rl.when('a');
  assert.equal(last, 1_000_000);
  // 5 ms * 2^17 = 655.36 s < cap; 2^18 → 1310.72 s > cap
  const r2 = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
  const seq = Array.from({ length: 19 }, () => r2.when('x'));
  assert.equal(seq[17], 655_360);
  assert.equal(seq[18], 1_000_000);
});

test('forget resets the failure count', () => {
  const rl = new ItemExponentialFailureRateLimiter<string>(5, 1000);
  rl.when('a');
  rl.when('a');
  rl.forget('a');
  assert.equal(rl.numRequeues('a'), 0);
  assert.equal(rl.when('a'), 5);
});

test('fast-slow limiter: fast delay for maxFastAttempts, slow after', () => {
  const rl = new ItemFastSlowRateLimiter<string>(5, 10_000, 3);
  assert.deepEqual(
    [rl.when('a'), rl.when('a'), rl.when('a'), rl.when('a'), rl.when('a')],
    [5, 5, 5, 10_000, 10_000],
  );
  rl.forget('a');
  assert.equal(rl.when('a'), 5);
});

test('token bucket: burst of 100 is free, then one token per 100 ms at 10 qps', () => {
  const clock = new VirtualClock();
  const rl = new BucketRateLimiter<string>(clock, 10, 100);
  for (let i = 0; i < 100; i++) assert.equal(rl.when(`k${i}`), 0);
  assert.equal(rl.when('x'), 100);
  assert.equal(rl.when('y'), 200);
  assert.equal(rl.numRequeues('x'), 0);
});

test('token bucket refills with virtual time and never above burst', async () => {
  const clock = new VirtualClock();
  const b = new TokenBucket(clock, 10, 100);
  for (let i = 0; i < 100; i++) b.reserve();
  assert.equal(b.available(), 0);
  await clock.advance(500);
  assert.equal(b.available(), 5);
  await clock.advance(3_600_000);
  assert.equal(b.available(), 100);
});

test('token bucket debt is repaid in time: waits are spaced by 1/qps', async () => {
  const clock = new VirtualClock();
  const b = new TokenBucket(clock, 10, 1);
  assert.equal(b.reserve(), 0);
  assert.equal(b.reserve(), 100);
  await clock.advance(100);
  assert.equal(b.reserve(), 100);
});

test('max-of takes the longest delay and reports which rule won', () => {
  const clock = new VirtualClock();
  const rl = defaultControllerRateLimiter<string>(clock);
  assert.equal(rl.when('a'), 5);
  assert.equal(rl.lastReason(), 'backoff');
  for (let i = 0; i < 200; i++) rl.when(`other${i}`);
  // bucket is now deep in debt; its delay beats the 10 ms backoff for 'a'
  const d = rl.when('a');
  assert.ok(d > 10);
  assert.equal(rl.lastReason(), 'rate-limit');
  assert.equal(rl.numRequeues('a'), 2);
  rl.forget('a');
  assert.equal(rl.numRequeues('a'), 0);
});

test('max-of over custom limiters', () => {
  const rl = new MaxOfRateLimiter<string>([
    new ItemFastSlowRateLimiter<string>(1, 50, 1),
    new ItemExponentialFailureRateLimiter<string>(10, 1000),
  ]);
  assert.equal(rl.when('a'), 10);
  assert.equal(rl.when('a'), 50);
  assert.equal(rl.when('a'), 50);
  assert.equal(rl.when('a'), 80);
});

test('limiters list the items they hold failures for, and forget them', () => {
  const clock = new VirtualClock();
  const l = defaultControllerRateLimiter<string>(clock);
  l.when('a');
  l.when('b');
  l.when('a');
  assert.deepEqual([...(l.tracked() ?? [])].sort(), ['a', 'b']);
  l.forget('a');
  assert.deepEqual([...(l.tracked() ?? [])], ['b']);
  assert.deepEqual([...new ItemFastSlowRateLimiter<string>(1, 2, 3).tracked()], []);
});

test('max-of cannot list its items when one of its limiters cannot', () => {
  const custom = { when: () => 1, forget: () => {}, numRequeues: () => 1 };
  const l = new MaxOfRateLimiter<string>([new ItemExponentialFailureRateLimiter(5, 1000), custom]);
  l.when('a');
  assert.equal(l.tracked(), undefined);
});
