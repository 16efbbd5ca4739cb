/**
 * What a Reconcile Debugger panel says when it comes back after a window reload. A reload
 * restarts the extension host, and the reconciler's worker, the fake cluster and a Delve session
 * stop with it: a held reconcile cannot be resumed. The panel says what it showed, that the run
 * is gone, and how to start it again, rather than coming back blank or pretending to continue.
 */
import type { DebuggerSnapshot } from '../../protocol';

export function restoredMessage(s: DebuggerSnapshot): string {
  const go = s.source.backend === 'go';
  const who = s.reconciler ?? (go ? 'the Go operator' : 'the reconciler');
  const what = go ? `${who} (a Go operator under Delve)` : who;
  const lost = go
    ? 'the reload ended the Delve session and the fake cluster'
    : 'the reload restarted the extension host, which ran it and the fake cluster';
  const again = `Start again runs ${who} anew${go ? ' under Delve' : ', held at its first reconcile'}.`;
  const shown = s.shown;
  if (!shown) return `The window was reloaded and ${what} stopped: ${lost}. ${again}`;
  const key = shown.request.namespace
    ? `${shown.request.namespace}/${shown.request.name}`
    : shown.request.name;
  const where = shown.phase ? `the ${shown.phase} phase of ${key}` : key;
  return shown.held
    ? `The window was reloaded while ${what} was held at ${where}. A held reconcile cannot be resumed after a reload: ${lost}. ${again}`
    : `The window was reloaded while the panel showed ${where} (${what}), and the run stopped: ${lost}. ${again}`;
}
