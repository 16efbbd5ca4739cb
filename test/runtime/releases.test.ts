// The runtime tests' Releases (helpers.ts): what a test starts is released however it ends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Releases, cleanup, env } from './helpers';

let released: string[] = [];

test('a test registers what it starts', async (t) => {
  const e = await env(t);
  e.mgr.start();
  cleanup(t, () => released.push('first'));
  cleanup(t, () => released.push('second'));
  assert.deepEqual(released, [], 'nothing is released while the test runs');
});

test('…and it was released after that test, last started first', () => {
  assert.deepEqual(released, ['second', 'first']);
  released = [];
});

test('every release runs even when one throws, and the failure is reported', async () => {
  const r = new Releases();
  const order: number[] = [];
  r.add(() => order.push(1));
  r.add(() => {
    throw new Error('stop failed');
  });
  r.add(async () => order.push(3));
  await assert.rejects(r.releaseAll(), /stop failed/);
  assert.deepEqual(order, [3, 1]);
  await r.releaseAll();
  assert.deepEqual(order, [3, 1], 'released once');
});
