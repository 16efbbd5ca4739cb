import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChartPoint } from '../../../src/protocol';
import {
  countsInWords,
  formatRate,
  latestInWords,
  pileUpInWords,
  pileUps,
  pointColumns,
  rateColumns,
  ratesInWords,
  RATE_BUCKETS,
  sharedRange,
  stepColumns,
} from '../../../webviews/debugger/chartdata';

const O = 1_796_032_756_207;

/** A hot loop on the virtual clock: n reconciles all at clock O, `every` ms of running time apart. */
function hotLoop(n: number, every: number, from = 0): ChartPoint[] {
  return Array.from({ length: n }, (_, i): ChartPoint => [O, i + 1, from + i * every]);
}

describe('the charts’ data', () => {
  it('puts measurements at their seconds of running time, with the controller’s clock beside', () => {
    assert.deepEqual(
      pointColumns([
        [O + 1500, 12, 1200],
        [O + 4000, 3.5, 3000],
      ]),
      {
        columns: [
          [1.2, 3],
          [12, 3.5],
        ],
        clocks: [O + 1500, O + 4000],
      },
    );
  });

  it('carries each step series forward on a shared time axis, empty before its first point', () => {
    const { columns, clocks } = stepColumns([
      [
        [O, 1, 0],
        [O + 2000, 2, 2000],
      ],
      [[O + 1000, 1, 1000]],
    ]);
    const [xs, a, b] = columns;
    assert.deepEqual(xs, [0, 1, 2]);
    assert.deepEqual(a, [1, 1, 2]);
    assert.deepEqual(b, [null, 1, 1]);
    assert.deepEqual(clocks, [O, O + 1000, O + 2000]);
  });

  it('spreads a hot loop at one clock instant over running time instead of a column at t≈0', () => {
    const { columns, clocks } = stepColumns([hotLoop(4, 5)]);
    assert.deepEqual(columns, [
      [0, 0.005, 0.01, 0.015],
      [1, 2, 3, 4],
    ]);
    assert.deepEqual(clocks, [O, O, O, O], 'all at one instant of the controller’s clock');
  });

  it('reaches to the present so a flat line does not stop at its last change', () => {
    assert.deepEqual(stepColumns([[[O, 3, 0]]], 5000), {
      columns: [
        [0, 5],
        [3, 3],
      ],
      clocks: [O, null],
    });
    // Nothing recorded yet: nothing to extend.
    assert.deepEqual(stepColumns([[]], 5000), { columns: [[], []], clocks: [] });
  });

  it('takes the last of several values recorded at one time', () => {
    assert.deepEqual(
      stepColumns([
        [
          [O, 1, 0],
          [O, 4, 0],
        ],
      ]).columns,
      [[0], [4]],
    );
  });

  it('counts a hot loop’s reconciles per second of running time', () => {
    // 21 reconciles 5 ms apart (0–100 ms of running time) in a run of 1 s: 50 ms buckets hold
    // 10, 10 and 1 reconciles — 200/s, 200/s, 20/s — then none.
    const rate = rateColumns([hotLoop(21, 5)], 1000);
    assert.equal(rate.bucketMs, 50);
    const [xs, ys] = rate.columns;
    assert.equal(xs.length, 21, 'twenty buckets and the axis’s end');
    assert.deepEqual(xs.slice(0, 3), [0, 0.05, 0.1]);
    assert.equal(xs[xs.length - 1], 1);
    assert.deepEqual(ys!.slice(0, 4), [200, 200, 20, 0]);
    assert.deepEqual(rate.peaks, [200]);
    assert.equal(
      ratesInWords(['default/shop'], rate),
      'default/shop at most 200/s (counted per 50ms)',
    );
  });

  it('widens the rate’s buckets to keep a long run to a few dozen', () => {
    const rate = rateColumns([[[O, 1, 0]]], 10 * 60_000);
    assert.equal(rate.bucketMs, 30_000);
    assert.ok(rate.columns[0].length - 1 <= RATE_BUCKETS);
    // A run with no running time yet shows its one bucket whole.
    const none = rateColumns([[[O, 1, 0]]], 0);
    assert.deepEqual(none.columns, [
      [0, 0.05],
      [20, 20],
    ]);
    assert.deepEqual(rateColumns([[], []], 1000).columns, [[], [], []]);
    assert.equal(ratesInWords([], rateColumns([], 1000)), 'none yet');
  });

  it('writes rates with the digits they need', () => {
    assert.equal(formatRate(0), '0/s');
    assert.equal(formatRate(0.25), '0.25/s');
    assert.equal(formatRate(2.5), '2.5/s');
    assert.equal(formatRate(116.7), '117/s');
  });

  it('finds a key’s reconciles piled up at one instant of controller time, and says it as a rate', () => {
    const shop = [...hotLoop(21, 9), [O + 5000, 22, 2000] as ChartPoint];
    const found = pileUps([
      { key: 'default/shop', points: shop },
      // Fewer than ten at one instant, or spread over the clock: no pile-up.
      { key: 'default/blog', points: hotLoop(3, 1) },
      {
        key: 'default/web',
        points: Array.from({ length: 12 }, (_, i): ChartPoint => [O + i * 100, i + 1, i * 100]),
      },
    ]);
    assert.deepEqual(found, [
      { key: 'default/shop', reconciles: 21, clockMs: 0, runMs: 180, at: O },
    ]);
    assert.equal(
      pileUpInWords(found[0]!),
      'default/shop: hot loop — 21 reconciles in 0ms of controller time, over 180ms of running time (111/s)',
    );
  });

  it('keeps the largest pile-up of a key, the latest of equals', () => {
    const points = [
      ...hotLoop(10, 1),
      ...hotLoop(10, 1, 500).map((p): ChartPoint => [O + 50, p[1], p[2]]),
    ];
    assert.deepEqual(
      pileUps([{ key: 'k', points }]).map((p) => [p.at, p.runMs]),
      [[O + 50, 9]],
    );
  });

  it('says the latest and largest values in words, for the caption and screen readers', () => {
    const ms = (v: number) => `${v}ms`;
    assert.equal(
      latestInWords(
        [
          [O, 5, 0],
          [O + 1, 2, 1],
        ],
        String,
      ),
      '2 now, at most 5',
    );
    assert.equal(latestInWords([[O, 3, 0]], ms, 'last'), '3ms last, at most 3ms');
    assert.equal(latestInWords([], String), 'none yet');
    assert.equal(
      countsInWords([
        { key: 'default/blog', points: [[O, 24, 0]] },
        { key: 'default/shop', points: [[O, 6, 0]] },
      ]),
      'default/blog 24, default/shop 6',
    );
    assert.equal(countsInWords([]), 'none yet');
  });

  it('gives every chart one x range: from the start to now or the latest point', () => {
    // Latency points end before now; the step series reach now: all get [0, now].
    assert.deepEqual(sharedRange([[0.2, 0.4], [0.3], [0.1, 0.6]], 600), [0, 0.6]);
    assert.deepEqual(sharedRange([[0.2, 1.5], []], 600), [0, 1.5]);
    // A lone moment (nothing yet) gets a second of axis.
    assert.deepEqual(sharedRange([[], []], 0), [0, 1]);
    assert.deepEqual(sharedRange([[0]], 0), [0, 1]);
  });
});
