import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { AuditEvent } from '../../src/cluster/endpoints/audit';
import { createCluster } from '../../src/cluster/builtins';
import { analyze } from '../../src/runtime/findings';
import { loadManifests } from '../../src/cluster/manifests';
import { ObservedManager } from '../../src/runtime/observedcontroller';
import { clusterFindingsSource, observedFindings } from '../../src/runtime/observedfindings';
import { KEPT_TRACES } from '../../src/runtime/trace';
import { parseZapLine } from '../../src/runtime/zaplog';
import { ROOT, cleanup } from './helpers';

const T0 = Date.parse('2026-11-30T23:00:00Z');
let rid = 0;

function log(m: ObservedManager, at: number, msg: string, extra: Record<string, unknown> = {}) {
  m.onLog(
    parseZapLine(
      JSON.stringify({
        level: 'Level(-5)',
        ts: new Date(T0 + at).toISOString(),
        msg,
        controller: 'webapp',
        controllerGroup: 'apps.example.com',
        controllerKind: 'WebApp',
        namespace: 'default',
        name: 'shop',
        reconcileID: `r${rid}`,
        ...extra,
      }),
    )!,
  );
  const c = m.get('webapp');
  return c?.traces[c.traces.length - 1];
}

let seq = 0;
function audit(at: number, e: Partial<AuditEvent>): AuditEvent {
  return {
    seq: ++seq,
    auditID: `a${seq}`,
    stage: 'ResponseComplete',
    user: 'go-operator',
    userAgent: 'manager/v0.0.0',
    verb: 'update',
    requestURI: '/',
    apiVersion: 'apps.example.com/v1',
    resource: 'webapps',
    subresource: '',
    namespace: 'default',
    name: 'shop',
    code: 200,
    start: T0 + at,
    end: T0 + at + 1,
    ...e,
  };
}

/** One reconcile whose Pod create the quota refused (403), ending in an error. */
function quotaRefusal(m: ObservedManager): void {
  rid++;
  log(m, 0, 'Reconciling');
  m.onAudit(
    audit(1, {
      verb: 'create',
      resource: 'pods',
      apiVersion: 'v1',
      name: '',
      code: 403,
      reason: 'Forbidden',
      message:
        'pods "x" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=2, limited: pods=2',
    }),
  );
  log(m, 3, 'Reconciler error', { error: 'forbidden' });
}

function webapp(rv: string) {
  return {
    apiVersion: 'apps.example.com/v1',
    kind: 'WebApp',
    metadata: { name: 'shop', namespace: 'default', resourceVersion: rv },
  };
}

describe('a Go manager observed through its logs, metrics and audit record', () => {
  it("keeps the webhook calls of the process's write on its call, and names a refused create by them", () => {
    const m = new ObservedManager('go-operator', 0);
    rid++;
    log(m, 0, 'Reconciling');
    const webhookCalls = [
      {
        kind: 'validating',
        webhook: 'vreply.example.com',
        configuration: 'replies',
        operation: 'CREATE',
        resource: 'configmaps',
        namespace: 'default',
        name: 'shop-reply',
        start: T0 + 1,
        ms: 3,
        ok: true,
        allowed: false,
        code: 403,
        message: 'admission webhook "vreply.example.com" denied the request: no',
      },
    ];
    // The refused create has no object before or after, and its URL names none.
    m.onAudit(
      audit(1, {
        verb: 'create',
        resource: 'configmaps',
        apiVersion: 'v1',
        name: '',
        code: 403,
        message: webhookCalls[0].message,
        webhookCalls,
      }),
    );
    const t = log(m, 10, 'Reconciler error', { error: 'denied' })!;
    assert.deepEqual(
      t.calls.map((c) => [c.verb, c.name, c.code, c.webhooks]),
      [['create', 'shop-reply', 403, webhookCalls]],
    );
  });

  it("turns a reconcile's logs into a trace with the process's own calls and the queue's next step", () => {
    const m = new ObservedManager('go-operator', 0);
    rid++;
    log(m, 0, 'Reconciling');
    assert.deepEqual(m.snapshots(T0 + 1)[0].processing, [{ key: 'default/shop', since: T0 }]);
    m.onAudit(
      audit(2, {
        verb: 'create',
        resource: 'deployments',
        apiVersion: 'apps/v1',
        name: 'shop',
        code: 201,
        after: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'shop', resourceVersion: '7' },
        },
      }),
    );
    m.onAudit(audit(3, { user: 'kubectl' }));
    m.onAudit(audit(4, { verb: 'watch' }));
    const t = log(m, 10, 'Reconcile done, requeueing after 30s')!;
    assert.equal(t.outcome, 'requeue_after');
    assert.deepEqual(t.result, { requeueAfter: 30_000 });
    assert.deepEqual(
      t.calls.map((c) => [c.verb, c.kind, c.name, c.code, c.resourceVersion]),
      [['create', 'Deployment', 'shop', 201, '7']],
    );
    const snap = m.snapshots(T0 + 20)[0];
    assert.deepEqual(snap.processing, []);
    assert.deepEqual(snap.waiting, [
      { key: 'default/shop', readyAt: T0 + 30_010, reason: { kind: 'requeueAfter' } },
    ]);
    // Once due and before it starts, the key is in line.
    assert.deepEqual(m.snapshots(T0 + 40_000)[0].queued, [{ key: 'default/shop' }]);
  });

  it('backs off failures as controller-runtime does and counts retries per key', () => {
    const m = new ObservedManager('go-operator', 0);
    for (let i = 0; i < 3; i++) {
      rid++;
      log(m, i * 100, 'Reconciling');
      log(m, i * 100 + 5, 'Reconciler error', { level: 'error', error: 'exceeded quota' });
    }
    const c = m.get('webapp')!;
    assert.deepEqual(
      c.traces.map((t) => t.next?.delayMs),
      [5, 10, 20],
    );
    assert.deepEqual(
      c.traces.map((t) => t.triggers[0].kind),
      ['event', 'backoff', 'backoff'],
    );
    assert.deepEqual(m.snapshots(T0 + 205)[0].retries, [{ key: 'default/shop', count: 3 }]);
  });

  /** A manager whose every pass writes the WebApp's status, each write triggering the next. */
  function statusWritingLoop(passes: number, firstRv: number): ObservedManager {
    const m = new ObservedManager('go-operator', 0);
    for (let i = 0; i < passes; i++) {
      rid++;
      const at = i * 20;
      log(m, at, 'Reconciling');
      m.onAudit(
        audit(at + 2, {
          subresource: 'status',
          before: webapp(String(firstRv + i)),
          after: webapp(String(firstRv + 1 + i)),
        }),
      );
      log(m, at + 5, 'Reconcile successful');
    }
    return m;
  }

  it('keeps one hot-loop report per key, the newest, however long an unpausable process loops', () => {
    const m = statusWritingLoop(200, 1000);
    const c = m.get('webapp')!;
    assert.equal(c.hotLoops.length, 1);
    assert.ok(c.hotLoops[0].at > 1000, 'the report is the newest one');
  });

  it('keeps the newest KEPT_TRACES traces of a process that runs for long, dropping the oldest', () => {
    const m = statusWritingLoop(KEPT_TRACES + 5, 5000);
    const traces = m.get('webapp')!.traces;
    assert.equal(traces.length, KEPT_TRACES);
    assert.equal(traces[traces.length - 1].reconcileID, `r${rid}`);
    assert.equal(traces[0].reconcileID, `r${rid - KEPT_TRACES + 1}`);
  });

  it('sees a hot loop when each pass is triggered by its own status write, and findings name it', (t) => {
    const m = statusWritingLoop(25, 100);
    const c = m.get('webapp')!;
    assert.equal(c.traces[1].triggers[0].selfTriggered, true);
    assert.equal(c.hotLoops.length, 1);
    assert.equal(c.hotLoops[0].reason, 'self-triggered');
    const cluster = createCluster();
    cleanup(t, () => cluster.close());
    const kinds = analyze({
      controller: c,
      forType: { apiVersion: 'apps.example.com/v1', kind: 'WebApp' },
      api: cluster,
      events: [],
      durationMs: 500,
    }).map((f) => f.kind);
    assert.ok(kinds.includes('hot-loop'));
    assert.ok(kinds.includes('status-update-requeue'));
  });

  it('reports a quota 403 the process got as a quota conflict', (t) => {
    const m = new ObservedManager('go-operator', 0);
    quotaRefusal(m);
    const cluster = createCluster();
    cleanup(t, () => cluster.close());
    const f = analyze({
      controller: m.get('webapp')!,
      forType: { apiVersion: 'apps.example.com/v1', kind: 'WebApp' },
      api: cluster,
      events: [],
      durationMs: 10,
    }).find((x) => x.kind === 'quota-conflict');
    assert.equal(f?.evidence.quota, 'compute');
  });

  it("reads the queue's depth from /metrics and waiting keys from the priority queue's dump", () => {
    const m = new ObservedManager('go-operator', 0);
    m.onLog(
      parseZapLine(
        JSON.stringify({
          ts: T0 / 1000,
          msg: 'Starting workers',
          controller: 'webapp',
          'worker count': 2,
        }),
      )!,
    );
    m.onMetrics([
      { name: 'workqueue_depth', labels: { name: 'webapp', controller: 'webapp' }, value: 2 },
    ]);
    m.onLog(
      parseZapLine(
        JSON.stringify({
          ts: T0 / 1000,
          msg: 'workqueue_items',
          controller: 'webapp',
          items: [
            {
              key: { Namespace: 'default', Name: 'blog' },
              readyAt: new Date(T0 + 5000).toISOString(),
            },
            { key: { Namespace: 'default', Name: 'shop' } },
          ],
        }),
      )!,
    );
    const s = m.snapshots(T0 + 1)[0];
    assert.equal(s.depth, 2);
    assert.equal(s.workers, 2);
    assert.deepEqual(s.queued, [{ key: 'default/shop' }]);
    assert.deepEqual(
      s.waiting.map((w) => w.key),
      ['default/blog'],
    );
  });
});

describe('why an observed reconcile was enqueued', () => {
  it("is the informer's Create event of the object for a key reconciled the first time", () => {
    const m = new ObservedManager('go-operator', 0);
    rid++;
    const t = log(m, 0, 'Reconciling')!;
    assert.deepEqual(t.triggers[0].cause, {
      handler: 'for',
      event: 'create',
      object: {
        apiVersion: 'apps.example.com',
        kind: 'WebApp',
        namespace: 'default',
        name: 'shop',
      },
    });
  });

  it("is another client's write of the object, or of an object it owns", () => {
    const m = new ObservedManager('go-operator', 0);
    rid++;
    log(m, 0, 'Reconciling');
    log(m, 2, 'Reconcile successful');
    // kubectl edits the WebApp: its update event brings the key back.
    m.onAudit(
      audit(100, {
        user: 'kubectl',
        before: webapp('5'),
        after: webapp('6'),
        userAgent: 'kubectl',
      }),
    );
    rid++;
    const edited = log(m, 102, 'Reconciling')!;
    log(m, 104, 'Reconcile successful');
    assert.equal(edited.triggers[0].cause?.handler, 'for');
    assert.equal(edited.triggers[0].cause?.event, 'update');
    assert.equal(edited.triggers[0].selfTriggered, undefined);
    // The deployment controller writes the status of the Deployment the WebApp owns.
    const deployment = (rv: string) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'shop',
        namespace: 'default',
        resourceVersion: rv,
        ownerReferences: [
          { apiVersion: 'apps.example.com/v1', kind: 'WebApp', name: 'shop', uid: 'u1' },
        ],
      },
    });
    m.onAudit(
      audit(3000, {
        user: 'system:serviceaccount:kube-system:deployment-controller',
        resource: 'deployments',
        subresource: 'status',
        apiVersion: 'apps/v1',
        before: deployment('7'),
        after: deployment('8'),
      }),
    );
    // A write that changed nothing makes no event, and is not the cause.
    m.onAudit(audit(3001, { user: 'kubectl', before: webapp('6'), after: webapp('6') }));
    rid++;
    const owned = log(m, 3003, 'Reconciling')!;
    assert.deepEqual(owned.triggers[0].cause, {
      handler: 'owns',
      event: 'update',
      object: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'shop' },
    });
    assert.equal(m.traceOf(`r${rid}`), owned);
  });
});

describe('log entries wait for the audit events of the requests they follow', () => {
  it('attributes a write whose audit event arrives just after the end of its reconcile', async () => {
    const m = new ObservedManager('go-operator', 20);
    rid++;
    log(m, 0, 'Reconciling');
    log(m, 10, 'Reconcile successful');
    // Recorded when the response closed, after the manager had logged the end.
    m.onAudit(audit(5, { verb: 'create', resource: 'deployments', apiVersion: 'apps/v1' }));
    assert.equal(m.get('webapp'), undefined);
    await new Promise((r) => setTimeout(r, 40));
    assert.deepEqual(
      m.get('webapp')!.traces[0].calls.map((c) => c.verb),
      ['create'],
    );
  });
});

describe('quota findings for what a Go controller made', () => {
  it('follows the objects it wrote when their owner references are gone', (t) => {
    const m = new ObservedManager('go-operator', 0);
    rid++;
    log(m, 0, 'Reconciling');
    m.onAudit(
      audit(1, {
        verb: 'update',
        resource: 'deployments',
        apiVersion: 'apps/v1',
        after: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'shop', namespace: 'default', resourceVersion: '9' },
        },
      }),
    );
    log(m, 3, 'Reconcile successful');
    const cluster = createCluster();
    cleanup(t, () => cluster.close());
    // An Update of a locally built Deployment dropped its owner reference to the WebApp.
    const deploy = cluster.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'shop', namespace: 'default' },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'shop' } },
        template: {
          metadata: { labels: { app: 'shop' } },
          spec: { containers: [{ name: 'web', image: 'nginx' }] },
        },
      },
    });
    const event = {
      type: 'Warning',
      reason: 'FailedCreate',
      message:
        'Error creating: pods "shop-1-x" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=3, limited: pods=3',
      involvedObject: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        namespace: 'default',
        name: 'shop',
        uid: deploy.metadata.uid,
      },
    };
    const findings = analyze({
      controller: m.get('webapp')!,
      forType: { apiVersion: 'apps.example.com/v1', kind: 'WebApp' },
      api: cluster,
      events: [event],
      durationMs: 10,
    });
    const f = findings.find((x) => x.kind === 'quota-conflict');
    assert.deepEqual(f?.request, { namespace: 'default', name: 'shop' });
    assert.equal(f?.evidence.quota, 'compute');
  });
});

describe('a call whose audit event arrives after its reconcile was applied', () => {
  it('still goes to that reconcile', () => {
    const m = new ObservedManager('go-operator', 0);
    rid++;
    log(m, 0, 'Reconciling');
    log(m, 10, 'Reconcile successful');
    rid++;
    log(m, 20, 'Reconciling');
    m.onAudit(audit(5, { verb: 'create', resource: 'deployments', apiVersion: 'apps/v1' }));
    log(m, 30, 'Reconcile successful');
    const [first, second] = m.get('webapp')!.traces;
    assert.deepEqual(
      first.calls.map((c) => c.verb),
      ['create'],
    );
    assert.deepEqual(second.calls, []);
  });
});

describe('findings of a Go manager watched from outside', () => {
  it('names the quota conflict of a controller whose kind the cluster serves', (t) => {
    const cluster = createCluster();
    cleanup(t, () => cluster.close());
    loadManifests(cluster, [
      join(ROOT, 'samples/quota-operator/config/crd/bases/apps.example.com_webapps.yaml'),
    ]);
    const m = new ObservedManager('go-operator', 0);
    quotaRefusal(m);
    const f = observedFindings(m, clusterFindingsSource(cluster)).find(
      (x) => x.kind === 'quota-conflict',
    );
    assert.equal(f?.controller, 'webapp');
    assert.deepEqual(f?.request, { namespace: 'default', name: 'shop' });
  });

  it('has none for a controller whose kind the cluster does not serve', (t) => {
    const cluster = createCluster();
    cleanup(t, () => cluster.close());
    const m = new ObservedManager('go-operator', 0);
    quotaRefusal(m);
    const all = observedFindings(m, clusterFindingsSource(cluster));
    assert.deepEqual(all, []);
  });
});
