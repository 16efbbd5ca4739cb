/** Debugger states as the extension sends them, built for tests: a held reconcile and its history. */
import {
  emptyDebuggerState,
  type ApiCallView,
  type DebuggerState,
  type ReconcileView,
} from '../../../src/protocol';

export const ORIGIN = 1_000_000;

export function call(o: Partial<ApiCallView> = {}): ApiCallView {
  return {
    verb: 'get',
    resource: 'webapps',
    namespace: 'default',
    name: 'shop',
    code: 200,
    source: 'cache',
    latencyMs: 0,
    phase: 'read',
    ...o,
  };
}

/** The reconcile of default/shop held at its write phase, about to update its Deployment. */
export function heldReconcile(o: Partial<ReconcileView> = {}): ReconcileView {
  return {
    id: 'r-7',
    controller: 'webapp',
    request: { namespace: 'default', name: 'shop' },
    reason: 'update of WebApp default/shop',
    start: ORIGIN + 5_214,
    end: null,
    phases: [
      { phase: 'enqueue', at: ORIGIN + 5_000, detail: 'update event' },
      { phase: 'dequeue', at: ORIGIN + 5_214, detail: '' },
      { phase: 'reconcile', at: ORIGIN + 5_214, detail: '' },
      { phase: 'read', at: ORIGIN + 5_215, detail: '' },
      { phase: 'diff', at: ORIGIN + 5_216, detail: 'replicas 2 → 3' },
      { phase: 'write', at: ORIGIN + 5_216, detail: '' },
    ],
    heldAt: 'write',
    calls: [
      call(),
      call({
        verb: 'update',
        resource: 'deployments',
        source: 'server',
        code: 409,
        message: 'the object has been modified',
        latencyMs: 3,
        phase: 'write',
      }),
    ],
    writes: [
      {
        verb: 'update',
        resource: 'deployments',
        name: 'shop',
        code: 409,
        before: 'spec:\n  replicas: 2\n',
        after: 'spec:\n  replicas: 3\n',
      },
    ],
    objectBefore: 'spec:\n  replicas: 3\n',
    objectAfter: 'spec:\n  replicas: 3\n',
    result: null,
    outcomes: ['conflict'],
    ...o,
  };
}

export function heldState(o: Partial<DebuggerState> = {}): DebuggerState {
  return {
    ...emptyDebuggerState(),
    status: 'held',
    message: 'Held at Write',
    reconciler: 'reconcilers/webapp.reconciler.ts',
    origin: ORIGIN,
    now: ORIGIN + 5_216,
    current: heldReconcile(),
    history: [
      { id: 'r-6', start: ORIGIN + 1_000, end: ORIGIN + 1_004, outcome: 'requeue after 30s' },
      { id: 'r-7', start: ORIGIN + 5_214, end: null, outcome: 'held' },
    ],
    breakpoints: { phases: ['write'], outcomes: ['conflict'] },
    source: { backend: 'typescript', module: 'file:///w/reconcilers/webapp.reconciler.ts' },
    ...o,
  };
}
