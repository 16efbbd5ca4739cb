import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  formatDuration,
  formatOffset,
  offsetDecimals,
  plural,
} from '../../../src/vscode/model/timeformat';

describe('timeformat', () => {
  it('writes a length of time in the unit a person reads it in', () => {
    assert.equal(formatDuration(0), '0ms');
    assert.equal(formatDuration(0.25), '250µs');
    assert.equal(formatDuration(1.5), '1.5ms');
    assert.equal(formatDuration(5), '5ms');
    assert.equal(formatDuration(125.4), '125ms');
    assert.equal(formatDuration(1000), '1s');
    assert.equal(formatDuration(1234), '1.23s');
    assert.equal(formatDuration(2500), '2.5s');
    assert.equal(formatDuration(30_000), '30s');
    assert.equal(formatDuration(12_345), '12.3s');
    assert.equal(formatDuration(16 * 60_000 + 40_000), '16m40s');
    assert.equal(formatDuration(65_000), '1m05s');
    assert.equal(formatDuration(2 * 3_600_000 + 5 * 60_000), '2h05m');
    assert.equal(formatDuration(-1500), '-1.5s');
  });

  it('rounds up to the next unit rather than writing 60s or 60m', () => {
    assert.equal(formatDuration(59_990), '1m00s');
    assert.equal(formatDuration(3_599_800), '1h00m');
  });

  it('writes a clock time from the session start to the millisecond', () => {
    assert.equal(formatOffset(1_796_032_761_207, 1_796_032_756_207), 't+5.000s');
    assert.equal(formatOffset(65_250, 0), 't+1m05.250s');
    assert.equal(formatOffset(0, 1500), 't-1.500s');
    assert.equal(formatOffset(1.5, 0, 4), 't+0.0015s');
  });

  it('adds digits only when neighbouring times would otherwise read the same', () => {
    assert.equal(offsetDecimals([0, 1, 2, 2, 3], 0), 3);
    assert.equal(offsetDecimals([1000, 1000.4, 1001], 0), 4);
    assert.equal(offsetDecimals([1000, 1000.00001], 0), 6);
    assert.equal(offsetDecimals([], 0), 3);
  });

  it('counts with the right noun', () => {
    assert.equal(plural(1, 'reconcile'), '1 reconcile');
    assert.equal(plural(3, 'reconcile'), '3 reconciles');
    assert.equal(plural(2, 'retry', 'retries'), '2 retries');
  });
});
