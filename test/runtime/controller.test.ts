import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TerminalError } from '../../src/runtime/reconcile';
import { newControllerManagedBy } from '../../src/runtime/builder';
import { GenerationChangedPredicate } from '../../src/runtime/predicate';
import { PHASES, phaseDiff } from '../../src/runtime/trace';
import { EnqueueRequestForObject } from '../../src/runtime/handler';
import { CONFIGMAP, DEPLOYMENT, WEBAPP, configMap, env, webapp } from './helpers';

test('requeueAfter fires exactly at t+30s on the virtual clock', async (t) => {
  const e = await env(t);
  const starts: number[] = [];
  e.mgr.addReconciler({ for: CONFIGMAP }, async () => {
    starts.push(e.clock.now());
    return { requeueAfter: 30_000 };
  });
  e.cluster.create(configMap('a'));
  e.mgr.start();
  await e.clock.advance(0);
  await e.clock.advance(29_999);
  assert.deepEqual(starts, [0]);
  await e.clock.advance(1);
  assert.deepEqual(starts, [0, 30_000]);
  await e.clock.advance(60_000);
  assert.deepEqual(starts, [0, 30_000, 60_000, 90_000]);
  const trace = e.mgr.traces()[0];
  assert.deepEqual(trace.next, {
    action: 'requeueAfter',
    delayMs: 30_000,
    at: 30_000,
    reason: { kind: 'requeueAfter' },
  });
});

test("a requeued key's next trace says why it came back, dated when it was due back in the queue", async (t) => {
  const e = await env(t);
  let n = 0;
  e.mgr.addReconciler({ for: CONFIGMAP }, async () => {
    n++;
    if (n === 1) return { requeueAfter: 500 };
    if (n === 2) throw new Error('boom');
    return {};
  });
  e.cluster.create(configMap('a'));
  e.mgr.start();
  await e.clock.advance(1000);
  const [first, second, third] = e.mgr.traces();
  assert.deepEqual(second.triggers, [
    { at: 500, kind: 'requeueAfter', fromReconcile: first.id, selfTriggered: true },
  ]);
  assert.equal(second.start, 500);
  assert.deepEqual(third.triggers, [
    { at: 505, kind: 'backoff', fromReconcile: second.id, selfTriggered: true },
  ]);
  assert.equal(third.phases[0].at, 505, 'the enqueue phase is dated by its trigger');
});

test('an error is retried with backoff 5, 10, 20, 40 ms (addRateLimited)', async (t) => {
  const e = await env(t);
  const starts: number[] = [];
  const ctrl = e.mgr.addReconciler({ for: CONFIGMAP }, async () => {
    starts.push(e.clock.now());
    throw new Error('boom');
  });
  e.cluster.create(configMap('a'));
  e.mgr.start();
  await e.clock.advance(75);
  assert.deepEqual(starts, [0, 5, 15, 35, 75]);
  assert.equal(ctrl.metrics.reconcileErrors.get({ controller: 'configmap' }), 5);
  assert.equal(ctrl.queue.numRequeues('default/a'), 5);
  assert.equal(ctrl.traces[0].next?.reason?.kind, 'backoff');
  assert.equal(ctrl.traces[1].next?.reason?.attempt, 2);
});

test('success forgets the backoff: the next failure starts again at 5 ms', async (t) => {
  const e = await env(t);
  let n = 0;
  const ctrl = e.mgr.addReconciler({ for: CONFIGMAP }, async () => {
    n++;
    if (n === 1 || n === 2) throw new Error('fail');
    return {};
  });
  e.cluster.create(configMap('a'));
  e.mgr.start();
  await e.clock.advance(100);
  assert.equal(n, 3);
  assert.equal(ctrl.queue.numRequeues('default/a'), 0);
});

test('a TerminalError is not retried', async (t) => {
  const e = await env(t);
  let n = 0;
  const ctrl = e.mgr.addReconciler({ for: CONFIGMAP }, async () => {
    n++;
    throw new TerminalError('invalid spec');
  });
  e.cluster.create(configMap('a'));
  e.mgr.start();
  await e.clock.advance(3_600_000);
  assert.equal(n, 1);
  const l = { controller: 'configmap' };
  assert.equal(ctrl.metrics.terminalErrors.get(l), 1);
  assert.equal(ctrl.metrics.reconcileErrors.get(l), 1);
  assert.equal(ctrl.metrics.reconcileTotal.get({ ...l, result: 'error' }), 1);
  assert.equal(ctrl.traces[0].outcome, 'terminal');
  assert.deepEqual(ctrl.traces[0].next, { action: 'none' });
});

test('a Result returned with an error is ignored, with a warning, and the error is rate-limited', async (t) => {
  const e = await env(t);
  let n = 0;
  const ctrl = e.mgr.addReconciler({ for: CONFIGMAP }, async () => {
    n++;
    // Go's `return ctrl.Result{RequeueAfter: time.Minute}, err`: the error carries its Result
    if (n === 1) throw Object.assign(new Error('both'), { result: { requeueAfter: 60_000 } });
    return {};
  });
  e.cluster.create(configMap('a'));
  e.mgr.start();
  await e.clock.advance(10);
  const trace = ctrl.traces[0];
  assert.equal(trace.next?.action, 'rateLimited');
  assert.equal(trace.next?.delayMs, 5);
  assert.match(trace.warnings[0], /RequeueAfter and Requeue will always be ignored/);
  assert.equal(ctrl.traces[1].start, 5, 'retried after 5 ms, not 60 s');
  assert.deepEqual(ctrl.traces[1].warnings, [], 'a warning belongs to its own trace only');
});

test('requeue: true goes through the rate limiter (5 ms, then 10 ms)', async (t) => {
  const e = await env(t);
  const starts: number[] = [];
  const ctrl = e.mgr.addReconciler({ for: CONFIGMAP }, async () => {
    starts.push(e.clock.now());
    return starts.length < 3 ? { requeue: true } : {};
  });
  e.cluster.create(configMap('a'));
  e.mgr.start();
  await e.clock.advance(1000);
  assert.deepEqual(starts, [0, 5, 15]);
  assert.equal(ctrl.metrics.reconcileTotal.get({ controller: 'configmap', result: 'requeue' }), 2);
  assert.equal(ctrl.queue.numRequeues('default/a'), 0, 'forgotten after the final success');
});

test('a no-op status write causes no further reconcile', async (t) => {
  const e = await env(t);
  let n = 0;
  e.mgr.addReconciler({ for: WEBAPP }, async (ctx, req) => {
    n++;
    const app = await ctx.client.get(WEBAPP, req);
    app.status = { phase: 'Running' };
    await ctx.client.status().update(app);
    return {};
  });
  e.cluster.create(webapp('w'));
  e.mgr.start();
  await e.clock.advance(60_000);
  // 1: create event, writes status (changes) → 2: triggered by own status write, no-op write → stop
  assert.equal(n, 2);
  const [t1, t2] = e.mgr.traces();
  assert.equal(t1.calls[1].noop, undefined);
  assert.equal(t2.calls[1].noop, true);
  assert.equal(t2.triggers[0].selfTriggered, true);
  assert.equal(t2.triggers[0].fromReconcile, t1.id);
});

test('GenerationChangedPredicate ignores the status-only update', async (t) => {
  const e = await env(t);
  let n = 0;
  newControllerManagedBy(e.mgr)
    .for(WEBAPP, { predicates: [GenerationChangedPredicate] })
    .complete(async (ctx, req) => {
      n++;
      const app = await ctx.client.get(WEBAPP, req);
      app.status = { phase: 'Running', readyReplicas: n };
      await ctx.client.status().update(app);
      return {};
    });
  e.cluster.create(webapp('w'));
  e.mgr.start();
  await e.clock.advance(1000);
  assert.equal(n, 1);
  const app = e.cluster.get(WEBAPP, { namespace: 'default', name: 'w' });
  e.cluster.update({ ...app, spec: { image: 'nginx', replicas: 2 } });
  await e.clock.advance(1000);
  assert.equal(n, 2, 'a spec change (new generation) passes');
});

test('a change to an owned child reconciles its controlling owner', async (t) => {
  const e = await env(t);
  const seen: string[] = [];
  e.mgr.addReconciler({ for: WEBAPP, owns: [CONFIGMAP] }, async (_ctx, req) => {
    seen.push(`${req.namespace}/${req.name}`);
    return {};
  });
  const owner = e.cluster.create(webapp('owner'));
  e.mgr.start();
  await e.clock.advance(0);
  seen.length = 0;
  e.cluster.create({
    ...configMap('child'),
    metadata: {
      name: 'child',
      namespace: 'default',
      ownerReferences: [
        {
          apiVersion: 'apps.example.com/v1',
          kind: 'WebApp',
          name: 'owner',
          uid: owner.metadata.uid!,
          controller: true,
        },
      ],
    },
  });
  await e.clock.advance(0);
  assert.deepEqual(seen, ['default/owner']);
  const trace = e.mgr.traces().at(-1)!;
  assert.equal(trace.triggers[0].cause?.handler, 'owns');
  assert.equal(trace.triggers[0].cause?.object.kind, 'ConfigMap');
});

test('a non-controller ownerReference does not trigger the owner', async (t) => {
  const e = await env(t);
  const seen: string[] = [];
  e.mgr.addReconciler({ for: WEBAPP, owns: [CONFIGMAP] }, async (_ctx, req) => {
    seen.push(req.name);
    return {};
  });
  const owner = e.cluster.create(webapp('owner'));
  e.mgr.start();
  await e.clock.advance(0);
  seen.length = 0;
  e.cluster.create({
    ...configMap('child'),
    metadata: {
      name: 'child',
      namespace: 'default',
      ownerReferences: [
        {
          apiVersion: 'apps.example.com/v1',
          kind: 'WebApp',
          name: 'owner',
          uid: owner.metadata.uid!,
        },
      ],
    },
  });
  await e.clock.advance(0);
  assert.deepEqual(seen, []);
});

test('watches with a map function reconciles what the function returns', async (t) => {
  const e = await env(t);
  const seen: string[] = [];
  newControllerManagedBy(e.mgr)
    .for(WEBAPP)
    .watches(CONFIGMAP, (cm) => [{ namespace: 'default', name: cm.metadata.labels?.app ?? 'none' }])
    .complete(async (_ctx, req) => {
      seen.push(req.name);
      return {};
    });
  e.mgr.start();
  e.cluster.create({
    ...configMap('x'),
    metadata: { name: 'x', namespace: 'default', labels: { app: 'shop' } },
  });
  await e.clock.advance(0);
  assert.deepEqual(seen, ['shop']);
});

test('a key re-added while its reconcile runs is reconciled again only after it finishes', async (t) => {
  const e = await env(t);
  const log: string[] = [];
  let first = true;
  e.mgr.addReconciler({ for: CONFIGMAP }, async (ctx, req) => {
    log.push(`start ${ctx.now()}`);
    if (first) {
      first = false;
      // an outside change arrives while this reconcile is running
      const cm = e.cluster.get(CONFIGMAP, req);
      e.cluster.update({ ...cm, data: { changed: 'yes' } });
      await new Promise((r) => setImmediate(r));
    }
    log.push('end');
    return {};
  });
  e.cluster.create(configMap('a'));
  e.mgr.start();
  await e.clock.advance(0);
  assert.deepEqual(log, ['start 0', 'end', 'start 0', 'end']);
});

test('maxConcurrentReconciles=2 runs two keys at once but never one key twice', async (t) => {
  const e = await env(t);
  let running = 0;
  let peak = 0;
  const perKey = new Map<string, number>();
  let perKeyPeak = 0;
  e.mgr.addReconciler({ for: CONFIGMAP, maxConcurrentReconciles: 2 }, async (_ctx, req) => {
    running++;
    peak = Math.max(peak, running);
    perKey.set(req.name, (perKey.get(req.name) ?? 0) + 1);
    perKeyPeak = Math.max(perKeyPeak, perKey.get(req.name)!);
    await new Promise((r) => setImmediate(r));
    perKey.set(req.name, perKey.get(req.name)! - 1);
    running--;
    return {};
  });
  e.mgr.start();
  for (const n of ['a', 'b', 'c', 'd']) e.cluster.create(configMap(n));
  const cm = e.cluster.get(CONFIGMAP, { namespace: 'default', name: 'a' });
  e.cluster.update({ ...cm, data: { v: '2' } });
  await e.clock.advance(0);
  assert.equal(peak, 2);
  assert.equal(perKeyPeak, 1);
});

test('a throw is caught and counted as an error; a TypeError also counts as a panic', async (t) => {
  const e = await env(t);
  const ctrl = e.mgr.addReconciler({ for: CONFIGMAP }, async () => {
    const o = undefined as unknown as { x: number };
    return { requeueAfter: o.x };
  });
  e.cluster.create(configMap('a'));
  e.mgr.start();
  await e.clock.advance(0);
  const l = { controller: 'configmap' };
  assert.equal(ctrl.metrics.reconcileErrors.get(l), 1);
  assert.equal(ctrl.metrics.reconcilePanics.get(l), 1);
  assert.equal(ctrl.traces[0].error?.name, 'TypeError');
});

test('a hot loop writing the spec back is paused and reported', async (t) => {
  const e = await env(t, { hotLoop: { threshold: 10 } });
  let n = 0;
  const ctrl = e.mgr.addReconciler({ for: WEBAPP }, async (ctx, req) => {
    n++;
    const app = await ctx.client.get(WEBAPP, req);
    app.spec = { ...(app.spec as object), replicas: n + 1 };
    await ctx.client.update(app);
    return {};
  });
  e.cluster.create(webapp('spin'));
  e.mgr.start();
  await e.clock.advance(10_000);
  assert.equal(ctrl.hotLoops.length, 1);
  assert.equal(ctrl.hotLoops[0].key, 'default/spin');
  assert.equal(ctrl.hotLoops[0].suspended, true);
  assert.ok(n <= 12, `stopped quickly (ran ${n} times)`);
  assert.equal(ctrl.isSuspended('default/spin'), true);
});

test('reads come from the cache: with a propagation delay a stale read gets a 409 Conflict', async (t) => {
  const e = await env(t, { propagationDelayMs: 100 });
  const codes: number[] = [];
  e.mgr.addReconciler({ for: CONFIGMAP }, async (ctx, req) => {
    const cm = await ctx.client.get(CONFIGMAP, req);
    cm.data = { n: String(Math.random()) };
    try {
      await ctx.client.update(cm);
      codes.push(200);
    } catch (err) {
      codes.push((err as { code: number }).code);
      throw err;
    }
    return {};
  });
  e.cluster.create(configMap('a'));
  e.mgr.start();
  await e.clock.advance(50);
  // someone else updates the object: the cache learns of it only 100 ms later
  const cm = e.cluster.get(CONFIGMAP, { namespace: 'default', name: 'a' });
  e.cluster.update({ ...cm, data: { other: 'writer' } });
  await e.clock.advance(500);
  assert.ok(codes.includes(409), `saw ${codes.join(',')}`);
});

test('a reconcile is traced as enqueue, dequeue, reconcile, read, diff, write, status, result', async (t) => {
  const e = await env(t);
  e.mgr.addReconciler({ for: WEBAPP }, async (ctx, req) => {
    const app = await ctx.client.get(WEBAPP, req);
    await ctx.client.create({
      ...configMap(req.name),
      metadata: { name: req.name, namespace: req.namespace },
    });
    app.status = { phase: 'Running' };
    await ctx.client.status().update(app);
    return {};
  });
  e.cluster.create(webapp('w'));
  e.mgr.start();
  await e.clock.advance(0);
  const trace = e.mgr.traces()[0];
  assert.deepEqual(
    trace.phases.map((p) => p.phase),
    ['enqueue', 'dequeue', 'reconcile', 'read', 'diff', 'write', 'diff', 'status', 'result'],
  );
  assert.deepEqual([...new Set(trace.phases.map((p) => p.phase))].sort(), [...PHASES].sort());
  const status = trace.phases.find((p) => p.phase === 'status')!;
  assert.deepEqual(
    phaseDiff(status)?.find((d) => d.path === '.status.phase'),
    {
      path: '.status.phase',
      op: 'add',
      after: 'Running',
    },
  );
  assert.deepEqual(
    trace.calls.map((c) => [c.verb, c.resource, c.subresource, c.code, c.source]),
    [
      ['get', 'webapps', '', 200, 'cache'],
      ['create', 'configmaps', '', 201, 'server'],
      ['update', 'webapps', 'status', 200, 'server'],
    ],
  );
  assert.doesNotThrow(() => JSON.stringify(trace));
});

test('metrics are exported as Prometheus text with controller-runtime names', async (t) => {
  const e = await env(t);
  e.mgr.addReconciler({ for: CONFIGMAP }, async () => ({}));
  e.cluster.create(configMap('a'));
  e.mgr.start();
  await e.clock.advance(0);
  const text = e.mgr.metricsText();
  for (const name of [
    'controller_runtime_reconcile_total{controller="configmap",result="success"} 1',
    'controller_runtime_reconcile_errors_total{controller="configmap"} 0',
    'controller_runtime_reconcile_time_seconds_count{controller="configmap"} 1',
    'workqueue_depth{name="configmap"} 0',
    'workqueue_adds_total{name="configmap"} 1',
    'workqueue_queue_duration_seconds_count{name="configmap"} 1',
    'workqueue_work_duration_seconds_count{name="configmap"} 1',
    '# TYPE workqueue_retries_total counter',
  ]) {
    assert.ok(text.includes(name), `missing ${name}`);
  }
});

test('the queue snapshot shows waiting items with due time and reason', async (t) => {
  const e = await env(t);
  const ctrl = e.mgr.addReconciler({ for: CONFIGMAP }, async (_c, req) => {
    if (req.name === 'a') throw new Error('x');
    return { requeueAfter: 60_000 };
  });
  e.cluster.create(configMap('a'));
  e.cluster.create(configMap('b'));
  e.mgr.start();
  await e.clock.advance(0);
  const s = ctrl.snapshot();
  assert.deepEqual(
    s.waiting.map((w) => [w.key, w.readyAt, w.reason.kind]),
    [
      ['default/a', 5, 'backoff'],
      ['default/b', 60_000, 'requeueAfter'],
    ],
  );
  assert.deepEqual(s.retries, [{ key: 'default/a', count: 1 }]);
});

test('the snapshot lists retried keys with a rate limiter that cannot list its items', async (t) => {
  const e = await env(t);
  const failures = new Map<string, number>();
  // A custom limiter with no tracked(): the controller remembers the keys itself.
  const rateLimiter = {
    when: (k: string) => (failures.set(k, (failures.get(k) ?? 0) + 1), 1000),
    forget: (k: string) => void failures.delete(k),
    numRequeues: (k: string) => failures.get(k) ?? 0,
  };
  const ctrl = e.mgr.newController({
    name: 'custom',
    rateLimiter,
    reconcile: async (_ctx, req) => {
      if (req.name === 'a') throw new Error('boom');
      return {};
    },
  });
  ctrl.watch(CONFIGMAP, new EnqueueRequestForObject());
  e.cluster.create(configMap('a'));
  e.cluster.create(configMap('b'));
  e.mgr.start();
  await e.clock.advance(0);
  assert.deepEqual(ctrl.snapshot().retries, [{ key: 'default/a', count: 1 }]);
});

test('a reconcile of an owned Deployment child survives a real cluster round trip', async (t) => {
  const e = await env(t);
  e.mgr.addReconciler({ for: WEBAPP, owns: [DEPLOYMENT] }, async (ctx, req) => {
    const app = await ctx.client.get(WEBAPP, req);
    try {
      await ctx.client.get(DEPLOYMENT, req);
    } catch {
      await ctx.client.create({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: {
          name: req.name,
          namespace: req.namespace,
          ownerReferences: [
            {
              apiVersion: app.apiVersion,
              kind: app.kind,
              name: app.metadata.name,
              uid: app.metadata.uid,
              controller: true,
            },
          ],
        },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: req.name } },
          template: {
            metadata: { labels: { app: req.name } },
            spec: { containers: [{ name: 'c', image: 'nginx' }] },
          },
        },
      });
    }
    return {};
  });
  e.cluster.create(webapp('w'));
  e.mgr.start();
  await e.clock.advance(0);
  const ts = e.mgr.traces();
  assert.equal(ts.length, 2, 'created child triggers the owner once');
  assert.equal(ts[1].triggers[0].cause?.handler, 'owns');
  assert.equal(ts[1].triggers[0].selfTriggered, true);
});

test('an own write is recognised by every watch that hears its event, and after a filtered one', async (t) => {
  const e = await env(t);
  const passes: string[] = [];
  newControllerManagedBy(e.mgr)
    // The status write's event is filtered here (its generation did not change)…
    .for(WEBAPP, { predicates: [GenerationChangedPredicate] })
    // …and heard here, mapped to another key: it still knows which reconcile wrote it.
    .watches(WEBAPP, (app) =>
      app.metadata.name === 'a' ? [{ namespace: 'default', name: 'audit' }] : [],
    )
    .complete(async (ctx, req) => {
      passes.push(req.name);
      if (req.name !== 'a') return {};
      const app = await ctx.client.get(WEBAPP, req);
      if (app.status?.phase === 'Running') return {};
      app.status = { phase: 'Running' };
      await ctx.client.status().update(app);
      return {};
    });
  e.cluster.create(webapp('a'));
  e.mgr.start();
  await e.clock.advance(0);
  const traces = e.mgr.traces();
  const first = traces.find((tr) => tr.key === 'default/a')!;
  const audits = traces.filter((tr) => tr.key === 'default/audit');
  assert.deepEqual(passes.filter((p) => p === 'a').length, 1, 'the status write did not requeue a');
  // The create event, then the status write's event: the second is a's own write.
  const fromWrite = audits.flatMap((tr) => tr.triggers).filter((tg) => tg.fromReconcile);
  assert.equal(fromWrite.length, 1);
  assert.equal(fromWrite[0].fromReconcile, first.id);
  assert.equal(fromWrite[0].selfTriggered, false, 'written by a, heard for another key');
});

test('a hung reconcile is abandoned: its later calls fail and its closed trace gains nothing', async (t) => {
  const e = await env(t, { hangTimeoutMs: 30 });
  let release!: () => void;
  const stalled = new Promise<void>((r) => (release = r));
  let lateCall: unknown;
  let calls = 0;
  e.mgr.addReconciler({ for: WEBAPP }, async (ctx, req) => {
    if (calls++ > 0) return {};
    await stalled;
    try {
      await ctx.client.get(WEBAPP, req);
    } catch (err) {
      lateCall = err;
    }
    return {};
  });
  const ends: Array<{ error?: string; phases: number; calls: number; trace: unknown }> = [];
  e.mgr.on('reconcileEnd', (tr) =>
    ends.push({
      error: tr.error?.message,
      phases: tr.phases.length,
      calls: tr.calls.length,
      trace: tr,
    }),
  );
  e.cluster.create(webapp('w'));
  e.mgr.start();
  const run = e.clock.advance(1);
  await new Promise((r) => setTimeout(r, 80));
  assert.match(ends[0]!.error ?? '', /did not return within 30 ms \(hung\) and was abandoned/);
  const first = ends[0]!.trace as { phases: unknown[]; calls: unknown[] };
  const phasesAtEnd = first.phases.length;
  release();
  await run;
  await new Promise((r) => setTimeout(r, 20));
  assert.match(
    String((lateCall as Error)?.message),
    /context is done, so this call was not completed/,
  );
  assert.equal(first.phases.length, phasesAtEnd, 'no phase drawn after the result');
  assert.equal(first.calls.length, 0);
});
