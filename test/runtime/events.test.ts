import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Emitter } from '../../src/runtime/events';

interface Events {
  a: number;
  b: string;
}

test('has is true only while the event has a listener', () => {
  const e = new Emitter<Events>();
  assert.equal(e.has('a'), false);
  const off = e.on('a', () => {});
  assert.equal(e.has('a'), true);
  assert.equal(e.has('b'), false, 'a listener of another event does not count');
  off();
  assert.equal(e.has('a'), false);
  off(); // twice is harmless
  assert.equal(e.has('a'), false);
});

test('one function added twice is one listener: a single unsubscribe removes it', () => {
  const e = new Emitter<Events>();
  const seen: number[] = [];
  const fn = (v: number) => seen.push(v);
  const off1 = e.on('a', fn);
  e.on('a', fn);
  e.emit('a', 1);
  assert.deepEqual(seen, [1]);
  off1();
  assert.equal(e.has('a'), false);
  e.emit('a', 2);
  assert.deepEqual(seen, [1]);
});

test('emit reaches every listener of the event, past one that throws', () => {
  const e = new Emitter<Events>();
  const seen: string[] = [];
  e.on('b', () => {
    throw new Error('a failing view');
  });
  e.on('b', (v) => seen.push(v));
  e.on('a', () => seen.push('wrong event'));
  e.emit('b', 'x');
  assert.deepEqual(seen, ['x']);
});
