import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newForbidden } from '../../src/cluster/apimachinery/errors';
import type { KubeObject } from '../../src/cluster/apimachinery/types';
import { analyze, parseQuotaMessage, type ClusterEvent } from '../../src/runtime/findings';
import { CONFIGMAP, WEBAPP, configMap, env, webapp } from './helpers';

const QUOTA_MSG = 'exceeded quota: compute, requested: pods=1, used: pods=3, limited: pods=3';

test('the quota message is parsed into quota name and numbers', () => {
  assert.deepEqual(parseQuotaMessage(`pods "blog-x" is forbidden: ${QUOTA_MSG}`), {
    quota: 'compute',
    requested: 'pods=1',
    used: 'pods=3',
    limited: 'pods=3',
  });
});

function deployment(name: string, owner: KubeObject): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace: 'default',
      ownerReferences: [
        {
          apiVersion: owner.apiVersion,
          kind: owner.kind,
          name: owner.metadata.name!,
          uid: owner.metadata.uid!,
          controller: true,
        },
      ],
    },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'c', image: 'x' }] },
      },
    },
  };
}

test('FailedCreate on a ReplicaSet owned by a Deployment owned by the CR is a quota conflict of that CR', async (t) => {
  const e = await env(t);
  const ctrl = e.mgr.addReconciler({ for: WEBAPP }, async () => ({}));
  const app = e.cluster.create(webapp('blog'));
  const dep = e.cluster.create(deployment('blog', app));
  const rs = e.cluster.create({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: 'blog-7d9f',
      namespace: 'default',
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: 'blog',
          uid: dep.metadata.uid!,
          controller: true,
        },
      ],
    },
    spec: dep.spec as Record<string, unknown>,
  });
  e.cluster.recordEvent(
    rs,
    'Warning',
    'FailedCreate',
    `Error creating: pods "blog-7d9f-abcde" is forbidden: ${QUOTA_MSG}`,
  );
  e.mgr.start();
  await e.clock.advance(0);
  const events = e.cluster.list({ apiVersion: 'v1', kind: 'Event' }).items as ClusterEvent[];
  const fs = analyze({
    controller: ctrl,
    forType: WEBAPP,
    api: e.cluster,
    events,
    durationMs: 1000,
  });
  const q = fs.find((f) => f.kind === 'quota-conflict');
  assert.ok(q, JSON.stringify(fs));
  assert.deepEqual(q.request, { namespace: 'default', name: 'blog' });
  assert.equal(q.evidence.quota, 'compute');
  assert.equal(q.evidence.used, 'pods=3');
  assert.deepEqual(
    (q.evidence.ownerChain as Array<{ kind: string }>).map((o) => o.kind),
    ['ReplicaSet', 'Deployment', 'WebApp'],
  );
  assert.match(
    q.message,
    /ReplicaSet default\/blog-7d9f ← owned by Deployment default\/blog ← owned by WebApp default\/blog/,
  );
});

test('a 403 exceeded-quota answer to a write is a quota conflict with the call as evidence', async (t) => {
  const e = await env(t);
  e.cluster.addAdmission((a) => {
    if (a.operation === 'CREATE' && a.object.kind === 'Deployment') {
      throw newForbidden(
        { group: 'apps', resource: 'deployments' },
        a.object.metadata.name!,
        QUOTA_MSG,
      );
    }
  });
  const ctrl = e.mgr.addReconciler({ for: WEBAPP }, async (ctx, req) => {
    const app = await ctx.client.get(WEBAPP, req);
    try {
      await ctx.client.create(deployment(req.name, app));
    } catch {
      return { requeueAfter: 30_000 };
    }
    return {};
  });
  e.cluster.create(webapp('shop'));
  e.mgr.start();
  await e.clock.advance(60_000);
  const fs = analyze({
    controller: ctrl,
    forType: WEBAPP,
    api: e.cluster,
    events: [],
    durationMs: 60_000,
  });
  const q = fs.find((f) => f.kind === 'quota-conflict')!;
  assert.equal(q.evidence.source, 'api-call');
  assert.equal(q.evidence.count, 3, 'at t=0, 30 s and 60 s');
  assert.equal(q.evidence.limited, 'pods=3');
});

test('repeated 409 Conflicts on one key are a conflict storm', async (t) => {
  const e = await env(t);
  const ctrl = e.mgr.addReconciler({ for: CONFIGMAP }, async (ctx, req) => {
    const cm = await ctx.client.get(CONFIGMAP, req);
    cm.metadata.resourceVersion = '1'; // always stale
    cm.data = { t: String(ctx.now()) };
    await ctx.client.update(cm);
    return {};
  });
  e.cluster.create(configMap('hot'));
  e.mgr.start();
  await e.clock.advance(100);
  const fs = analyze({
    controller: ctrl,
    forType: CONFIGMAP,
    api: e.cluster,
    events: [],
    durationMs: 100,
  });
  const storm = fs.find((f) => f.kind === 'conflict-storm')!;
  assert.ok(storm);
  assert.ok((storm.evidence.conflicts as number) >= 3);
});

test('the backoff reaching its 1000 s cap is reported', async (t) => {
  const e = await env(t);
  const ctrl = e.mgr.addReconciler({ for: CONFIGMAP }, async () => {
    throw new Error('always');
  });
  e.cluster.create(configMap('a'));
  e.mgr.start();
  await e.clock.advance(3 * 3_600_000);
  const fs = analyze({
    controller: ctrl,
    forType: CONFIGMAP,
    api: e.cluster,
    events: [],
    durationMs: 3 * 3_600_000,
  });
  const cap = fs.find((f) => f.kind === 'backoff-at-cap')!;
  assert.ok(cap);
  assert.equal(cap.evidence.delayMs, 1_000_000);
  assert.equal(cap.evidence.attempts, 19, '5 ms · 2^18 is the first delay over the cap');
});

test('status writes that trigger the next reconcile and the bottleneck summary are reported', async (t) => {
  const e = await env(t);
  const ctrl = e.mgr.addReconciler({ for: WEBAPP }, async (ctx, req) => {
    const app = await ctx.client.get(WEBAPP, req);
    app.status = { phase: 'Running' };
    await ctx.client.status().update(app);
    return {};
  });
  e.cluster.create(webapp('w'));
  e.mgr.start();
  await e.clock.advance(1000);
  const fs = analyze({
    controller: ctrl,
    forType: WEBAPP,
    api: e.cluster,
    events: [],
    durationMs: 1000,
  });
  const s = fs.find((f) => f.kind === 'status-update-requeue')!;
  assert.equal(s.evidence.triggeredByOwnStatusWrite, 1);
  assert.equal(s.evidence.noopStatusWrites, 1);
  const b = fs.find((f) => f.kind === 'bottleneck')!;
  assert.equal(b.evidence.reconciles, 2);
  assert.equal(b.evidence.apiCallsPerReconcile, 2);
});

test('the hot-loop finding names the paths written on every pass', async (t) => {
  const e = await env(t, { hotLoop: { threshold: 5 } });
  let n = 1;
  const ctrl = e.mgr.addReconciler({ for: WEBAPP }, async (ctx, req) => {
    const app = await ctx.client.get(WEBAPP, req);
    app.spec = { ...(app.spec as object), replicas: ++n };
    await ctx.client.update(app);
    return {};
  });
  e.cluster.create(webapp('spin'));
  e.mgr.start();
  await e.clock.advance(1000);
  const fs = analyze({
    controller: ctrl,
    forType: WEBAPP,
    api: e.cluster,
    events: [],
    durationMs: 1000,
  });
  const h = fs.find((f) => f.kind === 'hot-loop')!;
  assert.ok(h);
  assert.ok((h.evidence.changedPaths as string[]).includes('.spec.replicas'));
  assert.match(h.message, /writes \.spec back/);
});
