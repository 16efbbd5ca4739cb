import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  latencySeries,
  MAX_POINTS,
  pushPoint,
  queueDepthOf,
  reconcilesPerKey,
} from '../../../src/vscode/model/chartseries';

const t = (key: string, start: number, end?: number) => ({ key, start, end });

describe('the debugger chart series', () => {
  it('counts each key’s reconciles up over time, busiest keys first, at most maxKeys', () => {
    const series = reconcilesPerKey(
      [t('a', 0, 1), t('b', 2, 3), t('a', 4, 5), t('c', 6, 7), t('a', 8)],
      2,
    );
    assert.deepEqual(series, [
      {
        key: 'a',
        points: [
          [1, 1],
          [5, 2],
          [8, 3],
        ],
      },
      { key: 'b', points: [[3, 1]] },
    ]);
  });

  it('charts latency without the time the process stood stopped in the debugger', () => {
    assert.deepEqual(
      latencySeries(
        [t('a', 100, 400), t('b', 500, 520), t('c', 600)],
        [
          [50, 150], // half before the reconcile
          [200, 300],
          [510, 530], // half after the reconcile's end
        ],
      ),
      [
        [400, 150],
        [520, 10],
      ],
    );
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
