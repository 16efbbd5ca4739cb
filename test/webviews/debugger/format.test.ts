import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatClock, formatDuration } from '../../../webviews/debugger/format';

describe('the panel’s clock offsets', () => {
  it('shows seconds to the millisecond, and minutes once past one', () => {
    assert.equal(formatClock(0), '0.000s');
    assert.equal(formatClock(5_214), '5.214s');
    assert.equal(formatClock(65_250), '1m05.250s');
  });

  it('keeps the sign of a time before the origin', () => {
    assert.equal(formatClock(-1_500), '-1.500s');
  });
});

describe('the panel’s durations', () => {
  it('picks the unit that keeps the number short', () => {
    assert.equal(formatDuration(0.25), '250µs');
    assert.equal(formatDuration(3), '3.0ms');
    assert.equal(formatDuration(250), '250ms');
    assert.equal(formatDuration(1_500), '1.50s');
    assert.equal(formatDuration(30_000), '30.0s');
    assert.equal(formatDuration(125_000), '2m5s');
  });
});
