// The snapshot the debugger webview saves and the extension reads back after a window reload.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  debuggerSnapshot,
  emptyDebuggerState,
  parseDebuggerSnapshot,
  savedTab,
} from '../../src/protocol';
import { heldState } from '../webviews/debugger/states';

describe('the Reconcile Debugger snapshot', () => {
  it('records the session, the reconcile shown, the phase it is held at and the breakpoints', () => {
    assert.deepEqual(debuggerSnapshot(heldState()), {
      source: { backend: 'typescript', module: 'file:///w/reconcilers/webapp.reconciler.ts' },
      reconciler: 'reconcilers/webapp.reconciler.ts',
      shown: {
        id: 'r-7',
        request: { namespace: 'default', name: 'shop' },
        phase: 'write',
        held: true,
      },
      breakpoints: { phases: ['write'], outcomes: ['conflict'] },
    });
  });

  it('is null when no session ran: there is nothing to start again', () => {
    assert.equal(debuggerSnapshot(emptyDebuggerState()), null);
  });

  it('names the last phase reached of a finished reconcile, not held', () => {
    const s = heldState();
    const done = { ...s, status: 'running' as const, current: { ...s.current!, heldAt: null } };
    assert.deepEqual(debuggerSnapshot(done)?.shown, {
      id: 'r-7',
      request: { namespace: 'default', name: 'shop' },
      phase: 'write',
      held: false,
    });
  });

  it('keeps what the last snapshot of the same session showed once it stopped showing it', () => {
    const before = debuggerSnapshot(heldState())!;
    const restored = heldState({ status: 'stopped', current: null });
    assert.deepEqual(debuggerSnapshot(restored, before)?.shown, before.shown);
    const other = heldState({
      status: 'stopped',
      current: null,
      source: { backend: 'go', module: '/w/operator' },
    });
    assert.equal(debuggerSnapshot(other, before)?.shown, null, 'another session');
    const running = heldState({ status: 'running', current: null });
    assert.equal(debuggerSnapshot(running, before)?.shown, null, 'a live session');
  });

  it('reads back what it saved, through JSON', () => {
    const saved = debuggerSnapshot(heldState());
    assert.deepEqual(parseDebuggerSnapshot(JSON.parse(JSON.stringify(saved))), saved);
  });

  it('keeps the tab shown, so a reloaded panel opens the same one', () => {
    const saved = debuggerSnapshot(heldState(), undefined, 'charts');
    assert.equal(saved?.tab, 'charts');
    const back = parseDebuggerSnapshot(JSON.parse(JSON.stringify(saved)));
    assert.equal(back?.tab, 'charts');
    assert.equal(savedTab(back), 'charts');
    assert.equal(savedTab(debuggerSnapshot(heldState(), undefined, 'reconcile')), 'reconcile');
  });

  it('opens on the Reconcile tab when the saved state names none, or one it does not know', () => {
    assert.equal(savedTab(undefined), 'reconcile');
    assert.equal(savedTab(debuggerSnapshot(heldState())), 'reconcile');
    assert.equal(savedTab({ tab: 'settings' }), 'reconcile');
    assert.equal(
      parseDebuggerSnapshot({ ...debuggerSnapshot(heldState()), tab: 7 })?.tab,
      undefined,
    );
  });

  it('refuses a saved state without a session it can start again', () => {
    assert.equal(parseDebuggerSnapshot(undefined), undefined);
    assert.equal(parseDebuggerSnapshot({ reconciler: 'x' }), undefined);
    assert.equal(parseDebuggerSnapshot({ source: { backend: 'python', module: '/w' } }), undefined);
  });

  it('drops malformed parts of a saved state and keeps the session', () => {
    const got = parseDebuggerSnapshot({
      source: { backend: 'go', module: '/w/operator' },
      reconciler: 7,
      shown: { id: 'r-1', request: { namespace: 'default' }, phase: 'write', held: true },
      breakpoints: { phases: ['write', 'nap'], outcomes: [] },
    });
    assert.deepEqual(got, {
      source: { backend: 'go', module: '/w/operator' },
      reconciler: null,
      shown: null,
      breakpoints: emptyDebuggerState().breakpoints,
    });
  });
});
