import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { GoPhase } from '../../../src/runtime/godebug/phases';
import type { ReconcileTrace } from '../../../src/runtime/trace';
import {
  goDebuggerState,
  goReconcileView,
  reconciledKeyOf,
} from '../../../src/vscode/model/godebugview';
import { phases, req } from '../../runtime/godebug/fixtures';

describe('Reconcile Debugger view of a Go reconcile', () => {
  it('holds at the last phase with each call, its code and source', () => {
    const v = goReconcileView(
      'WebAppReconciler',
      phases.map((phase, at) => ({ phase, at })),
      true,
    );
    assert.equal(v.heldAt, 'write');
    assert.deepEqual(v.request, req);
    assert.deepEqual(
      v.calls.map((c) => [c.verb, c.resource, c.source, c.code]),
      [
        ['get', 'Deployment', 'cache', 404],
        ['create', 'Deployment', 'server', 201],
      ],
    );
    assert.equal(v.writes.length, 1);
    assert.match(v.writes[0].after, /name: blog/);
    assert.equal(v.result, null);
  });

  const webapp = (rv: string, status?: object) => ({
    apiVersion: 'apps.example.com/v1',
    kind: 'WebApp',
    metadata: { name: 'blog', namespace: 'default', resourceVersion: rv },
    spec: { replicas: 2 },
    ...(status ? { status } : {}),
  });
  const readWebApp = (after: object): GoPhase => ({
    phase: 'read',
    summary: 'read get WebApp default/blog (cache) → 200',
    call: {
      verb: 'get',
      kind: 'WebApp',
      ...req,
      subresource: '',
      source: 'cache',
      code: 200,
      after,
    },
  });

  it('shows the reconciled object as read and as its status write left it, not a same-named child', () => {
    const [dequeue, reconcile, readDeploy, create] = phases;
    const status: GoPhase = {
      phase: 'status',
      summary: 'status update WebApp default/blog (server) → 200',
      call: {
        verb: 'update',
        kind: 'WebApp',
        ...req,
        subresource: 'status',
        source: 'server',
        code: 200,
        before: webapp('7'),
        after: webapp('8', { phase: 'Running' }),
      },
    };
    const stops = [dequeue, reconcile, readWebApp(webapp('7')), readDeploy, create, status];
    const v = goReconcileView(
      'webapp',
      stops.map((phase, at) => ({ phase, at })),
      false,
      undefined,
      { kind: 'WebApp', ...req, current: webapp('9', { phase: 'Later' }) },
    );
    assert.match(v.objectBefore, /kind: WebApp[\s\S]*resourceVersion: "7"/);
    assert.doesNotMatch(v.objectBefore, /status/);
    assert.match(v.objectAfter, /resourceVersion: "8"[\s\S]*phase: Running/);
  });

  it("shows the cluster's copy as now while Reconcile has not written the object", () => {
    const [dequeue, reconcile] = phases;
    const stops = [dequeue, reconcile, readWebApp(webapp('7'))].map((phase, at) => ({ phase, at }));
    const v = goReconcileView('webapp', stops, true, undefined, {
      kind: 'WebApp',
      ...req,
      current: webapp('9', { phase: 'Edited' }),
    });
    assert.match(v.objectBefore, /resourceVersion: "7"/);
    assert.match(v.objectAfter, /resourceVersion: "9"[\s\S]*phase: Edited/);
    assert.match(goReconcileView('webapp', stops, true).objectBefore, /^$/);
  });

  it("takes the reconciled kind from the manager's logs, else from the first read of the request's key", () => {
    const stops = phases.map((phase, at) => ({ phase, at }));
    assert.deepEqual(reconciledKeyOf(stops, 'WebApp'), { kind: 'WebApp', ...req });
    assert.deepEqual(reconciledKeyOf(stops), { kind: 'Deployment', ...req });
    assert.equal(reconciledKeyOf([]), undefined);
  });

  it('shows the webhook calls the cluster made for a held write, from its audit record', () => {
    const [dequeue, reconcile, read, create] = phases;
    const webhooks = [
      {
        kind: 'validating',
        webhook: 'vdeployment.example.com',
        start: 10,
        ms: 7,
        ok: false,
        error:
          'Post "https://127.0.0.1:1/validate?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused',
        failurePolicy: 'Ignore' as const,
      },
    ];
    const v = goReconcileView(
      'webapp',
      [dequeue, reconcile, read, { ...create, call: { ...create.call!, webhooks } }].map(
        (phase, at) => ({ phase, at }),
      ),
      true,
    );
    assert.equal(v.calls[0].webhooks, undefined);
    assert.deepEqual(
      v.calls[1].webhooks?.map((w) => [w.webhook, w.verdict, w.refused, w.latencyMs]),
      [['vdeployment.example.com', 'call failed — ignored (failurePolicy Ignore)', false, 7]],
    );
  });

  it("names the reconcile by controller-runtime's reconcileID and controller from its dequeue on", () => {
    const id = 'e67b0884-81c5-4796-b233-48ba0b021858';
    const [dequeue, reconcile, read, create] = phases;
    const stops = [
      { ...dequeue, reconcileID: id, controller: 'webapp' },
      reconcile,
      read,
      { ...create, call: { ...create.call!, latencyMs: 3.5 } },
    ].map((phase, at) => ({ phase, at }));
    const state = goDebuggerState({
      status: 'held',
      message: '',
      reconciler: 'WebAppReconciler',
      origin: 0,
      stops: stops.slice(0, 2),
      held: true,
      traces: [],
      breakpoints: { phases: [], outcomes: [] },
      findings: [],
      depth: [],
      holds: [],
      reason: 'create of WebApp default/blog',
    });
    assert.equal(state.current?.id, id);
    assert.equal(state.current?.controller, 'webapp');
    assert.equal(state.current?.reason, 'create of WebApp default/blog');
    // A server call's latency is its audit record's; a cache read has none.
    const v = goReconcileView('webapp', stops, true);
    assert.deepEqual(
      v.calls.map((c) => [c.source, c.latencyMs]),
      [
        ['cache', 0],
        ['server', 3.5],
      ],
    );
  });

  it('shows the Result and the queue decision once Reconcile returned', () => {
    const result: GoPhase = {
      phase: 'result',
      summary: 'result RequeueAfter: 5s',
      request: req,
      reconcileID: '07a1a90f-4b65-4390-9bb5-102b31467e65',
      result: { requeue: false, requeueAfterMs: 5000, error: null, terminal: false },
      next: { action: 'requeueAfter', delayMs: 5000 },
    };
    const v = goReconcileView(
      'WebAppReconciler',
      [...phases, result].map((phase, at) => ({ phase, at })),
      false,
    );
    assert.equal(v.id, '07a1a90f-4b65-4390-9bb5-102b31467e65');
    assert.equal(v.heldAt, null);
    assert.equal(v.result?.returned, '{ RequeueAfter: 5s }');
    assert.equal(v.result?.delayMs, 5000);
    assert.match(v.result!.next, /requeue after 5s/);
  });

  it("shows the user's line of the latest stop that has one, and the outcomes seen", () => {
    const at = (phase: GoPhase, line?: number): GoPhase =>
      line ? { ...phase, location: { file: '/m/internal/webapp_controller.go', line } } : phase;
    const stops = [at(phases[0]), at(phases[1], 40), at(phases[2], 45), at(phases[3], 60)];
    const v = goReconcileView(
      'WebAppReconciler',
      stops.map((phase, i) => ({ phase, at: i })),
      true,
    );
    assert.deepEqual(v.location, { file: '/m/internal/webapp_controller.go', line: 60 });
    assert.deepEqual(v.outcomes, ['notFound']);
    const first = goReconcileView('WebAppReconciler', [{ phase: stops[0], at: 0 }], true);
    assert.equal(first.location, undefined);
  });

  const trace = (id: number, name: string, start: number): ReconcileTrace => ({
    id,
    reconcileID: `r${id}`,
    controller: 'webapp',
    request: { namespace: 'default', name },
    key: `default/${name}`,
    worker: 0,
    triggers: [],
    start,
    end: start + 3,
    phases: [{ phase: 'reconcile', at: start, summary: `Reconcile default/${name}` }],
    calls: [],
    result: { requeueAfter: 5000 },
    outcome: 'requeue_after',
    warnings: [],
  });

  it("shows this key's timeline from the manager's record, and a finished reconcile picked in it", () => {
    const traces = [trace(1, 'blog', 10), trace(2, 'shop', 20), trace(3, 'blog', 5030)];
    const base = {
      status: 'held' as const,
      message: '',
      reconciler: 'WebAppReconciler',
      origin: 0,
      stops: phases.map((phase, at) => ({ phase, at: 6000 + at })),
      held: true,
      traces,
      breakpoints: { phases: [], outcomes: [] },
      findings: [],
      depth: [],
      holds: [],
    };
    const s = goDebuggerState(base);
    assert.equal(s.current?.heldAt, 'write');
    assert.deepEqual(
      s.history.map((h) => h.id),
      ['r1', 'r3'],
    );
    const picked = goDebuggerState({ ...base, inspected: 'r1' });
    assert.equal(picked.current?.id, 'r1');
    assert.equal(picked.current?.heldAt, null);
    assert.deepEqual(
      picked.history.map((h) => h.id),
      ['r1', 'r3'],
    );
  });

  it('charts the Go session from its stops and its record: depth, latency less holds, reconciles per key', () => {
    const traces = [trace(1, 'blog', 10), trace(2, 'shop', 20), trace(3, 'blog', 5030)];
    const s = goDebuggerState({
      status: 'running',
      message: '',
      reconciler: 'WebAppReconciler',
      origin: 0,
      stops: [],
      held: false,
      traces,
      breakpoints: { phases: [], outcomes: [] },
      findings: [],
      depth: [
        [10, 2],
        [5030, 1],
      ],
      // Stopped in Delve for 2 of blog's last reconcile's 3 ms.
      holds: [[5031, 5033]],
      now: 6000,
    });
    // Each point: [wall ms, value, running time] — the 2 ms held left out of the running time.
    assert.deepEqual(s.charts.queueDepth, [
      [10, 2, 10],
      [5030, 1, 5030],
    ]);
    assert.deepEqual(s.charts.latencyMs, [
      [13, 3, 13],
      [23, 3, 23],
      [5033, 1, 5031],
    ]);
    assert.deepEqual(s.charts.reconcilesPerKey, [
      {
        key: 'default/blog',
        points: [
          [13, 1, 13],
          [5033, 2, 5031],
        ],
      },
      { key: 'default/shop', points: [[23, 1, 23]] },
    ]);
    assert.equal(s.charts.runMs, 5998);
  });

  it('stops the running time while the process stands stopped in Delve', () => {
    const s = goDebuggerState({
      status: 'held',
      message: '',
      reconciler: 'WebAppReconciler',
      origin: 1000,
      stops: [],
      held: true,
      traces: [],
      breakpoints: { phases: [], outcomes: [] },
      findings: [],
      depth: [[1500, 1]],
      holds: [[1100, 1200]],
      stoppedSince: 1600,
      now: 61_600,
    });
    // 600 ms since the start, 100 of them held before; the minute stopped since counts nothing.
    assert.equal(s.charts.runMs, 500);
    assert.deepEqual(s.charts.queueDepth, [[1500, 1, 400]]);
  });
});
