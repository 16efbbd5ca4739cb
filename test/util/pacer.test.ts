import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualClock } from '../../src/util/clock';
import { ClockPacer } from '../../src/util/pacer';

describe('ClockPacer', () => {
  it('moves the virtual clock by the wall time between ticks', async () => {
    const clock = new VirtualClock(1000);
    let wall = 0;
    const pacer = new ClockPacer(clock, 25, () => wall);
    pacer.start();
    pacer.stop();
    wall = 40;
    await pacer.tick();
    assert.equal(clock.now(), 1040);
  });

  it('does not move a frozen clock, and skips the frozen time afterwards', async () => {
    const clock = new VirtualClock(0);
    let wall = 0;
    const pacer = new ClockPacer(clock, 25, () => wall);
    pacer.start();
    pacer.stop();
    const thaw = clock.freeze();
    wall = 500;
    await pacer.tick();
    assert.equal(clock.now(), 0);
    thaw();
    wall = 510;
    await pacer.tick();
    assert.equal(clock.now(), 10);
  });

  it('fires timers that come due as it advances', async () => {
    const clock = new VirtualClock(0);
    let fired = 0;
    clock.setTimeout(() => fired++, 30);
    let wall = 0;
    const pacer = new ClockPacer(clock, 25, () => wall);
    pacer.start();
    pacer.stop();
    wall = 30;
    await pacer.tick();
    assert.equal(fired, 1);
  });

  it('caps one tick at a second of controller time', async () => {
    const clock = new VirtualClock(0);
    let wall = 0;
    const pacer = new ClockPacer(clock, 25, () => wall);
    pacer.start();
    pacer.stop();
    wall = 60_000;
    await pacer.tick();
    assert.equal(clock.now(), 1000);
  });
});
