import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualClock } from '../../../src/util/clock';
import { PacedKeyDebouncer } from '../../../src/vscode/model/debounce';

describe('PacedKeyDebouncer with no patience', () => {
  it('flushes a burst of changes once, after the quiet period, without duplicates', async () => {
    const clock = new VirtualClock();
    const flushed: string[][] = [];
    const d = new PacedKeyDebouncer<string>(clock, 50, 0, (keys) => flushed.push([...keys]));
    for (let i = 0; i < 1000; i++) d.add(`o:${i % 3}`);
    await clock.advance(49);
    assert.equal(flushed.length, 0);
    await clock.advance(1);
    assert.deepEqual(flushed, [['o:0', 'o:1', 'o:2']]);
  });

  it('starts a new period for changes after a flush', async () => {
    const clock = new VirtualClock();
    let flushes = 0;
    const d = new PacedKeyDebouncer<string>(clock, 10, 0, () => flushes++);
    d.add('a');
    await clock.advance(10);
    d.add('b');
    await clock.advance(10);
    assert.equal(flushes, 2);
  });
});

describe('PacedKeyDebouncer', () => {
  it('holds the next flush until the last one is taken, collecting the keys meanwhile', async () => {
    const clock = new VirtualClock();
    const flushed: string[][] = [];
    const d = new PacedKeyDebouncer<string>(clock, 100, 1000, (keys) => flushed.push([...keys]));
    d.add('a');
    await clock.advance(100);
    assert.deepEqual(flushed, [['a']]);
    // The consumer is busy: a second and third burst wait, and go out together once it is free.
    d.add('b');
    await clock.advance(300);
    d.add('c');
    d.add('b');
    await clock.advance(300);
    assert.equal(flushed.length, 1);
    d.taken();
    await clock.advance(99);
    assert.equal(flushed.length, 1);
    await clock.advance(1);
    assert.deepEqual(flushed, [['a'], ['b', 'c']]);
  });

  it('flushes anyway once its patience runs out (a flush the consumer never takes)', async () => {
    const clock = new VirtualClock();
    const flushed: string[][] = [];
    const d = new PacedKeyDebouncer<string>(clock, 100, 1000, (keys) => flushed.push([...keys]));
    d.add('a');
    await clock.advance(100);
    d.add('b');
    await clock.advance(999);
    assert.equal(flushed.length, 1);
    await clock.advance(1);
    assert.deepEqual(flushed, [['a'], ['b']]);
  });

  it('flushes after the quiet period alone while every flush is taken', async () => {
    const clock = new VirtualClock();
    let flushes = 0;
    const d = new PacedKeyDebouncer<string>(clock, 100, 1000, () => flushes++);
    for (let i = 0; i < 5; i++) {
      d.add(`k${i}`);
      await clock.advance(100);
      d.taken();
    }
    assert.equal(flushes, 5);
  });
});
