/**
 * The Go operator's robustness report without Go: a run's measures from the cluster's audit
 * record and the manager's metrics, and each case judged against the baseline as chaos.ts judges
 * a simulation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuditEvent } from '../../src/cluster/endpoints/audit';
import { createCluster } from '../../src/cluster/builtins';
import type { KubeObject } from '../../src/cluster/apimachinery/types';
import {
  Activity,
  goBaseline,
  goCase,
  ownedBy,
  reconcileTotal,
  requeueDue,
  type GoRun,
} from '../../src/runtime/gochaos';
import type { Finding } from '../../src/runtime/findings';
import type { ApiCall, ReconcileTrace } from '../../src/runtime/trace';
import { blogReconcile } from './helpers';

const webapp = (phase: string, ready: number, rv = '10'): KubeObject => ({
  apiVersion: 'apps.example.com/v1',
  kind: 'WebApp',
  metadata: { name: 'blog', namespace: 'default', uid: `u-${rv}`, resourceVersion: rv },
  spec: { replicas: 1 },
  status: { phase, readyReplicas: ready, observedGeneration: 1 },
});

const deployment = (rv: string, readyReplicas: number): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'blog', namespace: 'default', uid: `d-${rv}`, resourceVersion: rv },
  spec: { replicas: 1 },
  status: { readyReplicas },
});

function run(over: Partial<GoRun> = {}): GoRun {
  return {
    objects: [webapp('Running', 1)],
    owned: [deployment('11', 1)],
    findings: [],
    traces: [],
    reconciles: 5,
    apiCalls: 12,
    lastChangeMs: 600,
    steady: true,
    ...over,
  };
}

const finding = (kind: Finding['kind']): Finding => ({
  kind,
  severity: 'warning',
  controller: 'webapp',
  request: { namespace: 'default', name: 'blog' },
  message: kind,
  evidence: {},
});

const call = (over: Partial<ApiCall>): ApiCall => ({
  verb: 'update',
  resource: 'deployments',
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  namespace: 'default',
  name: 'blog',
  subresource: '',
  code: 200,
  source: 'server',
  at: 0,
  ...over,
});

const trace = (calls: ApiCall[], error?: string): ReconcileTrace =>
  blogReconcile({ end: 1, calls, ...(error ? { error: { message: error } } : {}) });

test('a case whose objects end as the baseline’s converged, however their versions differ', () => {
  const c = goCase(
    'write-conflict',
    run(),
    run({
      objects: [webapp('Running', 1, '42')],
      owned: [deployment('43', 7)],
      lastChangeMs: 900,
      reconciles: 7,
    }),
  );
  // The owned Deployment's status is other controllers' to write: not compared.
  assert.deepEqual(c, {
    fault: 'write-conflict',
    converged: true,
    timeToConvergeMs: 900,
    settled: true,
    reconciles: 7,
    apiCalls: 12,
    findings: [],
    diff: '',
  });
});

test('a case whose WebApp status differs did not converge and lost status', () => {
  const c = goCase('status-500', run(), run({ objects: [webapp('QuotaExceeded', 0)] }));
  assert.equal(c.converged, false);
  assert.equal(c.timeToConvergeMs, null);
  assert.ok(c.findings.includes('lost-status'));
  assert.match(c.diff, /WebApp default\/blog: \.status\.phase: "Running" → "QuotaExceeded"/);
});

test('findings are the ones the baseline lacks', () => {
  const c = goCase(
    'stale-cache',
    run({ findings: [finding('hot-loop')] }),
    run({ findings: [finding('hot-loop'), finding('conflict-storm')] }),
  );
  assert.deepEqual(c.findings, ['conflict-storm']);
});

test('an injected failure a reconcile hid is errors-swallowed; one retried until it passed is not', () => {
  const failed = call({ code: 403, fault: 'quota-exhausted' });
  const hid = goCase('quota-exhausted', run(), run({ traces: [trace([failed])] }));
  assert.deepEqual(hid.findings, ['errors-swallowed']);
  // client-go hands a 403 back: a success of the same request after it is another attempt's.
  const again = goCase(
    'quota-exhausted',
    run(),
    run({ traces: [trace([failed, call({ at: 1000 })])] }),
  );
  assert.deepEqual(again.findings, ['errors-swallowed']);
  // client-go retries a 429 after its Retry-After: the reconcile saw the update succeed.
  const throttled = call({ code: 429, fault: 'throttling' });
  const retried = goCase(
    'throttling',
    run(),
    run({ traces: [trace([throttled, call({ at: 1000 })])] }),
  );
  assert.deepEqual(retried.findings, []);
  const returned = goCase('write-500', run(), run({ traces: [trace([failed], 'Forbidden')] }));
  assert.deepEqual(returned.findings, []);
});

test('a manager that exited mid-run is said so in the findings and the diff', () => {
  const c = goCase(
    'watch-410',
    run(),
    run({
      objects: [],
      exit: {
        code: 2,
        signal: null,
        stopped: false,
        lastLines: ['goroutine 1 [running]:'],
        buildErrors: [],
        panic: 'panic: boom',
      },
    }),
  );
  assert.equal(c.converged, false);
  assert.ok(c.findings.includes('exited'));
  assert.match(c.diff, /^the manager exited: panic: boom/);
  assert.match(c.diff, /WebApp default\/blog: missing/);
});

test('a case cut at the duration while the baseline settled is not-settled', () => {
  const cut = goCase('stale-cache', run(), run({ steady: false }));
  assert.deepEqual(cut.findings, ['not-settled']);
  // In the baseline's state at the cut, still writing: no time to converge.
  assert.deepEqual([cut.converged, cut.settled, cut.timeToConvergeMs], [true, false, null]);
  // When the baseline never settled either, every run was cut: nothing to say per case.
  assert.deepEqual(
    goCase('stale-cache', run({ steady: false }), run({ steady: false })).findings,
    [],
  );
});

test('a requeue the manager logged is due from its time until the key is reconciled again', () => {
  // ObservedManager keeps a key waiting from its RequeueAfter (or backoff) until its next start.
  const waiting = new Map([['default/blog', { readyAt: 5010, reason: { kind: 'requeueAfter' } }]]);
  const observed = { all: () => [{ waiting }, { waiting: new Map() }] };
  assert.equal(requeueDue(observed, 3000), false, 'not due before the window reaches it');
  assert.equal(requeueDue(observed, 5010), true);
  waiting.delete('default/blog');
  assert.equal(requeueDue(observed, 7000), false);
});

test('the baseline of a manager still writing at the duration has no steady time', () => {
  assert.equal(goBaseline(run()).steadyAtMs, 600);
  assert.equal(goBaseline(run({ steady: false })).steadyAtMs, null);
  assert.equal(goBaseline(run()).objects, 2);
  // Settled without a write that changed anything: steady from the start, not "never settled".
  assert.equal(goBaseline(run({ lastChangeMs: null })).steadyAtMs, 0);
  // Its own findings say why it could not settle.
  const looping = run({ steady: false, findings: [finding('hot-loop'), finding('hot-loop')] });
  assert.deepEqual(goBaseline(looping).findings, ['hot-loop']);
  // A quiet one cut off while a requeue it asked for was due says so; a settled one has no cause.
  assert.equal(goBaseline(run({ steady: false, cutOffBy: 'requeue' })).cutOffBy, 'requeue');
  assert.equal(goBaseline(run({ cutOffBy: 'writes' })).cutOffBy, undefined);
});

test('a case in the state of a baseline that never settled has no time to converge', () => {
  // Both cut off still writing, their states alike at the cut: a snapshot, not a convergence.
  const c = goCase('write-500', run({ steady: false }), run({ steady: false, lastChangeMs: 4500 }));
  assert.deepEqual([c.converged, c.settled, c.timeToConvergeMs], [true, false, null]);
  // Even one that settled: the state it settled in was the baseline's only at its cut.
  assert.equal(goCase('write-500', run({ steady: false }), run()).timeToConvergeMs, null);
});

let seq = 0;
const audit = (over: Partial<AuditEvent>): AuditEvent => ({
  seq: ++seq,
  auditID: `a${seq}`,
  stage: 'ResponseComplete',
  user: 'go-operator',
  userAgent: 'manager/v0.0.0',
  verb: 'get',
  requestURI: '/',
  apiVersion: 'apps/v1',
  resource: 'deployments',
  subresource: '',
  namespace: 'default',
  name: 'blog',
  code: 200,
  start: 1000,
  end: 1001,
  ...over,
});

test('activity: the manager’s own requests, its last change, and when it has been quiet long enough', () => {
  const a = new Activity('go-operator');
  assert.equal(a.steady(5000, 100), false, 'not before its first request');
  a.onAudit(audit({ resource: '', apiVersion: '', start: 1000 })); // discovery: time, not a call
  const watch = audit({ verb: 'watch', stage: 'ResponseStarted', code: 0, start: 1010 });
  a.onAudit(watch);
  a.onAudit({ ...watch, stage: 'ResponseComplete', code: 200 });
  a.onAudit(audit({ user: 'someone-else', verb: 'create', start: 9000 }));
  const before = deployment('5', 0);
  a.onAudit(audit({ verb: 'update', start: 1500, end: 1510, before, after: deployment('6', 0) }));
  // A no-op update is no activity; a failed write is activity but no change.
  a.onAudit(audit({ verb: 'update', start: 2000, end: 2001, before, after: before }));
  a.onAudit(audit({ verb: 'update', code: 409, start: 2500, end: 2502 }));
  assert.equal(a.calls, 4, 'the watch once, the three updates; not discovery or other users');
  assert.equal(a.lastChangeMs, 500);
  assert.equal(a.steady(2502 + 99, 100), false);
  assert.equal(a.steady(2502 + 100, 100), true);
});

test('reconciles are controller_runtime_reconcile_total over every controller and result', () => {
  const s = (controller: string, result: string, value: number) => ({
    name: 'controller_runtime_reconcile_total',
    labels: { controller, result },
    value,
  });
  assert.equal(
    reconcileTotal([
      s('webapp', 'success', 4),
      s('webapp', 'error', 2),
      s('other', 'requeue_after', 1),
      { name: 'workqueue_adds_total', labels: { name: 'webapp' }, value: 40 },
    ]),
    7,
  );
  assert.equal(reconcileTotal([]), undefined);
});

test('owned objects are those whose controller reference names an owner', () => {
  const cluster = createCluster({ controllers: false });
  try {
    const cm = (name: string, refs: KubeObject['metadata']['ownerReferences'] = []) =>
      cluster.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: 'default', ownerReferences: refs },
      });
    const owner = cm('owner');
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid! };
    cm('child', [{ ...ref, controller: true }]);
    cm('adopted-by-nobody', [{ ...ref, controller: false }]);
    cm('stranger');
    assert.deepEqual(
      ownedBy(cluster, [owner]).map((o) => o.metadata.name),
      ['child'],
    );
  } finally {
    cluster.close();
  }
});
