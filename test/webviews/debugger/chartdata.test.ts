import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  countsInWords,
  latestInWords,
  pointColumns,
  sharedRange,
  stepColumns,
} from '../../../webviews/debugger/chartdata';

const O = 1_796_032_756_207;

describe('the charts’ data', () => {
  it('puts measurements at their seconds since the session start', () => {
    assert.deepEqual(
      pointColumns(
        [
          [O + 1500, 12],
          [O + 4000, 3.5],
        ],
        O,
      ),
      [
        [1.5, 4],
        [12, 3.5],
      ],
    );
  });

  it('carries each step series forward on a shared time axis, empty before its first point', () => {
    const [xs, a, b] = stepColumns(
      [
        [
          [O, 1],
          [O + 2000, 2],
        ],
        [[O + 1000, 1]],
      ],
      O,
    );
    assert.deepEqual(xs, [0, 1, 2]);
    assert.deepEqual(a, [1, 1, 2]);
    assert.deepEqual(b, [null, 1, 1]);
  });

  it('reaches to the present so a flat line does not stop at its last change', () => {
    assert.deepEqual(stepColumns([[[O, 3]]], O, O + 5000), [
      [0, 5],
      [3, 3],
    ]);
    // Nothing recorded yet: nothing to extend.
    assert.deepEqual(stepColumns([[]], O, O + 5000), [[], []]);
  });

  it('takes the last of several values recorded at one time', () => {
    assert.deepEqual(
      stepColumns(
        [
          [
            [O, 1],
            [O, 4],
          ],
        ],
        O,
      ),
      [[0], [4]],
    );
  });

  it('says the latest and largest values in words, for the caption and screen readers', () => {
    const ms = (v: number) => `${v}ms`;
    assert.equal(
      latestInWords(
        [
          [O, 5],
          [O + 1, 2],
        ],
        String,
      ),
      '2 now, at most 5',
    );
    assert.equal(latestInWords([[O, 3]], ms, 'last'), '3ms last, at most 3ms');
    assert.equal(latestInWords([], String), 'none yet');
    assert.equal(
      countsInWords([
        { key: 'default/blog', points: [[O, 24]] },
        { key: 'default/shop', points: [[O, 6]] },
      ]),
      'default/blog 24, default/shop 6',
    );
    assert.equal(countsInWords([]), 'none yet');
  });

  it('gives every chart one x range: from the start to now or the latest point', () => {
    // Latency points end before now; the step series reach now: all three get [0, now].
    assert.deepEqual(sharedRange([[0.2, 0.4], [0.3], [0.1, 0.6]], O, O + 600), [0, 0.6]);
    assert.deepEqual(sharedRange([[0.2, 1.5], []], O, O + 600), [0, 1.5]);
    // A lone moment (nothing yet, or the clock stood still) gets a second of axis.
    assert.deepEqual(sharedRange([[], []], O, O), [0, 1]);
    assert.deepEqual(sharedRange([[0]], O, O), [0, 1]);
  });
});
