import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReconcileSummary } from '../../../src/protocol';
import { foldTimeline, passLabels, rowLabels, rowTime } from '../../../webviews/debugger/timeline';

const run = (id: string, outcome: string, extra: Partial<ReconcileSummary> = {}) => ({
  id,
  start: Number(id),
  end: Number(id) + 1,
  outcome,
  ...extra,
});

describe('the timeline of a key', () => {
  it('folds consecutive passes with the same result into one row', () => {
    const rows = foldTimeline([
      run('1', 'error: Conflict'),
      ...Array.from({ length: 19 }, (_, i) => run(String(10 + i), '{} → forget')),
      run('40', 'error: Conflict'),
    ]);
    assert.deepEqual(
      rows.map((r) => [r.outcome, r.runs.length, r.runs[0]!.id]),
      [
        ['error: Conflict', 1, '1'],
        ['{} → forget', 19, '10'],
        ['error: Conflict', 1, '40'],
      ],
    );
  });

  it('keeps passes apart when different faults hit them', () => {
    const rows = foldTimeline([
      run('1', 'error: Conflict', { faults: ['a'] }),
      run('2', 'error: Conflict', { faults: ['b'] }),
      run('3', 'error: Conflict', { faults: ['b'] }),
    ]);
    assert.deepEqual(
      rows.map((r) => [r.faults, r.runs.length]),
      [
        [['a'], 1],
        [['b'], 2],
      ],
    );
  });

  it('never folds a reconcile that is still running', () => {
    const rows = foldTimeline([
      run('1', 'running', { end: null }),
      run('2', 'running', { end: null }),
    ]);
    assert.equal(rows.length, 2);
  });

  it('writes a run that happened at one instant with one time, and numbers its passes', () => {
    const at = (ms: number) => `t+${ms}`;
    const [instant] = foldTimeline([run('5', '{}'), { ...run('6', '{}'), start: 5 }]);
    assert.equal(rowTime(instant!, at), 't+5');
    assert.deepEqual(passLabels(instant!, at), ['#1 t+5', '#2']);
    const [spread] = foldTimeline([run('5', '{}'), run('5', '{}'), run('7', '{}')]);
    assert.equal(rowTime(spread!, at), 't+5 – t+7');
    assert.deepEqual(passLabels(spread!, at), ['#1 t+5', '#2', '#3 t+7']);
  });

  it('numbers the rows in order when they all start at one instant, and says the time once', () => {
    const at = (ms: number) => `t+${ms}`;
    const instant = (id: string, outcome: string) => ({ ...run(id, outcome), start: 0 });
    const rows = foldTimeline([
      instant('1', 'requeue after 5s'),
      ...Array.from({ length: 20 }, (_, i) => instant(String(2 + i), '{} → forget')),
    ]);
    const { labels, note } = rowLabels(rows, at);
    assert.deepEqual(labels, ['#1', '#2–21']);
    assert.match(note ?? '', /^All at t\+0: no controller time passed/);
    // Rows whose times differ keep their times, and need no note.
    const apart = rowLabels(foldTimeline([run('5', 'a'), run('9', 'b')]), at);
    assert.deepEqual(apart, { labels: ['t+5', 't+9'] });
    assert.deepEqual(rowLabels(foldTimeline([run('5', 'a')]), at), { labels: ['t+5'] });
  });
});
