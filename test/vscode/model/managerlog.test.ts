import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { parseZapLine } from '../../../src/runtime/zaplog';
import { ManagerLog } from '../../../src/vscode/model/managerlog';

const zap = (ts: number, id: string) =>
  parseZapLine(
    JSON.stringify({
      level: 'info',
      ts,
      msg: 'Reconcile successful',
      controller: 'webapp',
      namespace: 'default',
      name: 'shop',
      reconcileID: id,
    }),
  )!;

describe("a Go manager's output as shown", () => {
  it('shows zap lines readable, not as JSON, and folds a hot loop’s repeats into one line', () => {
    let now = 1_000;
    const shown: string[] = [];
    const log = new ManagerLog(
      (l) => shown.push(...l),
      () => now,
    );
    for (let i = 0; i < 50; i++) {
      log.entry(zap(1.0 + i / 100, `id-${i}`));
      now += 20;
    }
    log.plain('panic: runtime error');
    log.dispose();
    assert.equal(shown.length, 3, shown.join('\n'));
    assert.doesNotMatch(shown[0], /^\{/);
    assert.match(shown[0], /Reconcile successful/);
    assert.match(shown[1], /^… and 49 more like the line above, over /);
    assert.equal(shown[2], 'panic: runtime error');
  });

  it('says what it folded when it is disposed, and nothing when nothing was folded', () => {
    const now = 5_000;
    const shown: string[] = [];
    const log = new ManagerLog(
      (l) => shown.push(...l),
      () => now,
    );
    log.entry(zap(1, 'a'));
    log.entry(zap(1, 'b'));
    log.flush();
    log.flush();
    log.dispose();
    assert.equal(shown.length, 2);
    assert.match(shown[1], /1 more like the line above/);
  });
});
