import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseZapLine } from '../../../src/runtime/zaplog';
import { LogRepeats, zapShape } from '../../../src/vscode/model/logrepeats';

/** controller-runtime's reconcile start line for `name`, as its zap logger writes it. */
function reconciling(name: string, id: string, ts: number) {
  return parseZapLine(
    JSON.stringify({
      level: 'Level(-5)',
      ts,
      msg: 'Reconciling',
      controller: 'webapp',
      namespace: 'default',
      name,
      reconcileID: id,
    }),
  )!;
}

describe('folding a manager’s repeated log lines', () => {
  it('takes lines that differ only in their time and reconcileID for the same line', () => {
    assert.equal(zapShape(reconciling('shop', 'a', 1)), zapShape(reconciling('shop', 'b', 2)));
    assert.notEqual(zapShape(reconciling('shop', 'a', 1)), zapShape(reconciling('blog', 'a', 1)));
  });

  it('shows each kind of line of a hot loop once a window, then how many more there were', () => {
    const r = new LogRepeats(5_000);
    const shown: string[] = [];
    // Two keys reconciled in turn, 50 lines a second for two seconds.
    for (let i = 0; i < 100; i++) {
      const e = reconciling(i % 2 ? 'shop' : 'blog', `id-${i}`, i * 20);
      shown.push(...r.feed(zapShape(e), `Reconciling ${e.name}`, i * 20));
    }
    assert.deepEqual(shown, ['Reconciling blog', 'Reconciling shop']);
    assert.deepEqual(r.flush(2_000), [
      '… and 98 more like the 2 kinds of line above, over 1.96s (repeats folded)',
    ]);
    assert.deepEqual(r.flush(2_100), [], 'said once');
  });

  it('says the count before a new line, and shows a line again once its window has passed', () => {
    const r = new LogRepeats(5_000);
    const line = (name: string, at: number) =>
      r.feed(zapShape(reconciling(name, String(at), at)), `Reconciling ${name}`, at);
    assert.deepEqual(line('shop', 0), ['Reconciling shop']);
    assert.deepEqual(line('shop', 100), []);
    assert.deepEqual(line('shop', 200), []);
    assert.deepEqual(line('blog', 300), [
      '… and 2 more like the line above, over 200ms (repeats folded)',
      'Reconciling blog',
    ]);
    assert.deepEqual(line('shop', 5_000), ['Reconciling shop']);
  });
});
