import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  latencySeries,
  MAX_POINTS,
  pushPoint,
  queueDepthOf,
  reconcilesPerKey,
  runningTime,
} from '../../../src/vscode/model/chartseries';

const t = (key: string, start: number, end?: number, run?: number) => ({ key, start, end, run });
/** The running time each test trace was given, else its clock time. */
const runOf = (x: ReturnType<typeof t>) => x.run ?? x.end ?? x.start;

describe('the debugger chart series', () => {
  it('counts each key’s reconciles up over time, busiest keys first, at most maxKeys', () => {
    const series = reconcilesPerKey(
      [t('a', 0, 1), t('b', 2, 3), t('a', 4, 5), t('c', 6, 7), t('a', 8)],
      runOf,
      2,
    );
    assert.deepEqual(series, [
      {
        key: 'a',
        points: [
          [1, 1, 1],
          [5, 2, 5],
          [8, 3, 8],
        ],
      },
      { key: 'b', points: [[3, 1, 3]] },
    ]);
  });

  it('counts a hot loop’s reconciles at one clock instant in the order of their running times', () => {
    // Listed out of order; all at clock 0, 3 ms of running time apart.
    const series = reconcilesPerKey([t('a', 0, 0, 6), t('a', 0, 0, 0), t('a', 0, 0, 3)], runOf);
    assert.deepEqual(series[0]!.points, [
      [0, 1, 0],
      [0, 2, 3],
      [0, 3, 6],
    ]);
  });

  it('charts latency without the time the process stood stopped in the debugger', () => {
    assert.deepEqual(
      latencySeries([t('a', 100, 400), t('b', 500, 520), t('c', 600)], runOf, [
        [50, 150], // half before the reconcile
        [200, 300],
        [510, 530], // half after the reconcile's end
      ]),
      [
        [400, 150, 400],
        [520, 10, 520],
      ],
    );
  });

  it('measures running time on the wall clock without the time held', () => {
    const run = runningTime(1000, [
      [1200, 1300],
      [900, 1100], // began before the session: only its part after the start counts
      [1500, Infinity], // still held
    ]);
    assert.equal(run(1000), 0);
    assert.equal(run(1050), 0, 'held from the start');
    assert.equal(run(1150), 50);
    assert.equal(run(1250), 100, 'within a hold: where it began');
    assert.equal(run(1400), 200);
    assert.equal(run(9999), 300, 'held since 1500');
    assert.equal(runningTime(0, [])(42), 42);
  });

  it('adds the queue depths of every controller, trusting the larger of keys and metrics', () => {
    assert.equal(
      queueDepthOf([{ queued: ['a', 'b'], depth: 1 }, { queued: [], depth: 4 }, { queued: ['c'] }]),
      7,
    );
  });

  it('keeps the latest points of a series', () => {
    const s: Array<[number, number]> = [];
    for (let i = 0; i < MAX_POINTS + 5; i++) pushPoint(s, [i, i]);
    assert.equal(s.length, MAX_POINTS);
    assert.deepEqual(s[0], [5, 5]);
  });
});
