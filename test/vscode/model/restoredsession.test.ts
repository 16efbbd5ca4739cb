import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { DebuggerSnapshot } from '../../../src/protocol';
import { restoredMessage } from '../../../src/vscode/model/restoredsession';

const held: DebuggerSnapshot = {
  source: { backend: 'typescript', module: 'file:///w/reconcilers/webapp.reconciler.ts' },
  reconciler: 'reconcilers/webapp.reconciler.ts',
  shown: { id: 'r-7', request: { namespace: 'default', name: 'shop' }, phase: 'write', held: true },
  breakpoints: { phases: ['write'], outcomes: [] },
};

describe('what a debugger panel restored after a window reload says', () => {
  it('names the held reconcile and phase, says it cannot be resumed and how to start again', () => {
    const m = restoredMessage(held);
    assert.match(m, /held at the write phase of default\/shop/);
    assert.match(m, /cannot be resumed after a reload/);
    assert.match(m, /Start again runs reconcilers\/webapp\.reconciler\.ts anew, held/);
  });

  it('says a Go operator’s Delve session ended', () => {
    const m = restoredMessage({
      ...held,
      source: { backend: 'go', module: '/w/operator' },
      reconciler: 'WebAppReconciler',
    });
    assert.match(m, /WebAppReconciler \(a Go operator under Delve\) was held at the write phase/);
    assert.match(m, /ended the Delve session/);
    assert.match(m, /Start again runs WebAppReconciler anew under Delve/);
  });

  it('does not claim a hold the panel did not show', () => {
    const running = restoredMessage({ ...held, shown: { ...held.shown!, held: false } });
    assert.doesNotMatch(running, /was held at|cannot be resumed/);
    assert.match(running, /showed the write phase of default\/shop/);
    const nothing = restoredMessage({ ...held, shown: null });
    assert.match(
      nothing,
      /^The window was reloaded and reconcilers\/webapp\.reconciler\.ts stopped/,
    );
  });
});
