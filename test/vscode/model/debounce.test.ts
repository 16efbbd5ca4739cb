import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualClock } from '../../../src/util/clock';
import { KeyDebouncer } from '../../../src/vscode/model/debounce';

describe('KeyDebouncer', () => {
  it('flushes a burst of changes once, after the quiet period, without duplicates', async () => {
    const clock = new VirtualClock();
    const flushed: string[][] = [];
    const d = new KeyDebouncer<string>(clock, 50, (keys) => flushed.push([...keys]));
    for (let i = 0; i < 1000; i++) d.add(`o:${i % 3}`);
    await clock.advance(49);
    assert.equal(flushed.length, 0);
    await clock.advance(1);
    assert.deepEqual(flushed, [['o:0', 'o:1', 'o:2']]);
  });

  it('starts a new period for changes after a flush', async () => {
    const clock = new VirtualClock();
    let flushes = 0;
    const d = new KeyDebouncer<string>(clock, 10, () => flushes++);
    d.add('a');
    await clock.advance(10);
    d.add('b');
    await clock.advance(10);
    assert.equal(flushes, 2);
  });
});
