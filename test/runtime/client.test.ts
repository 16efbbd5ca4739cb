/** The instrumented client's write phases: what the trace keeps of a write. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/cluster/apimachinery/types';
import { phaseDiff, type PhaseRecord } from '../../src/runtime/trace';
import { CONFIGMAP, WEBAPP, configMap, env, webapp } from './helpers';

/** Reconciles one WebApp whose reconcile creates a ConfigMap, then mutates what it created. */
async function createThenMutate(
  t: Parameters<typeof env>[0],
  recordObjects: boolean,
): Promise<{ write: PhaseRecord; stored: KubeObject | undefined }> {
  const e = await env(t, { recordObjects });
  e.mgr.addReconciler({ for: WEBAPP }, async (ctx) => {
    const data = { image: 'nginx' };
    const cm = configMap('child', data);
    await ctx.client.create(cm);
    // The caller owns its object after the call: changing it must not rewrite the trace.
    data.image = 'changed';
    cm.metadata.labels = { late: 'yes' };
    return {};
  });
  e.cluster.create(webapp('a'));
  e.mgr.start();
  await e.clock.advance(0);
  const write = e.mgr.traces()[0].phases.find((p) => p.phase === 'write')!;
  return { write, stored: e.cluster.peek(CONFIGMAP, { namespace: 'default', name: 'child' }) };
}

for (const recordObjects of [true, false]) {
  test(`a write's diff shows what the server stored, whatever the caller does with its object next (recordObjects ${recordObjects})`, async (t) => {
    const { write } = await createThenMutate(t, recordObjects);
    const diff = phaseDiff(write);
    assert.equal(diff?.length, 1);
    const added = diff![0].after as KubeObject;
    assert.deepEqual(added.data, { image: 'nginx' });
    assert.equal(added.metadata.labels, undefined);
  });
}

test("in-process, a write's trace keeps the server's stored object itself, not a copy", async (t) => {
  const { write, stored } = await createThenMutate(t, true);
  assert.ok(stored);
  assert.equal(write.after, stored);
  assert.equal(phaseDiff(write)![0].after, stored);
});

test('calls of different types, read and written in turn, are each traced with their own resource', async (t) => {
  const e = await env(t);
  e.mgr.addReconciler({ for: WEBAPP }, async (ctx, req) => {
    // get, list and writes alternate between two types (each lookup is remembered per type).
    const app = await ctx.client.get(WEBAPP, req);
    await ctx.client.list(CONFIGMAP, { namespace: 'default' });
    await ctx.client.create(configMap(`child-${req.name}`, { image: 'nginx' }));
    // One that was there before: the one just created reaches the cache with its watch event.
    await ctx.client.get(CONFIGMAP, { namespace: 'default', name: 'settings' });
    app.status = { phase: 'Running' };
    await ctx.client.status().update(app);
    await ctx.client.list(WEBAPP, { namespace: 'default' });
    return {};
  });
  e.cluster.create(configMap('settings'));
  e.cluster.create(webapp('a'));
  e.cluster.create(webapp('b'));
  e.mgr.start();
  await e.clock.advance(0);
  const traces = e.mgr.traces();
  assert.ok(traces.length >= 2);
  for (const trace of traces.slice(0, 2)) {
    assert.deepEqual(
      trace.calls.map(
        (c) => `${c.verb} ${c.resource}${c.subresource ? `/${c.subresource}` : ''} ${c.code}`,
      ),
      [
        'get webapps 200',
        'list configmaps 200',
        'create configmaps 201',
        'get configmaps 200',
        'update webapps/status 200',
        'list webapps 200',
      ],
    );
  }
});

test("the object a write hands back is the caller's own copy: changing it changes neither the store nor the trace", async (t) => {
  const e = await env(t);
  e.mgr.addReconciler({ for: WEBAPP }, async (ctx, req) => {
    const cm = await ctx.client.create(configMap('child', { image: 'nginx' }));
    // Nested values of the answer, not the caller's own literal: these are what a shared answer
    // would have leaked.
    (cm.data as Record<string, string>).image = 'changed';
    cm.metadata.labels = { late: 'yes' };
    const app = await ctx.client.get(WEBAPP, req);
    app.status = { phase: 'Running' };
    const updated = await ctx.client.status().update(app);
    (updated.status as Record<string, string>).phase = 'Mutated';
    updated.metadata.annotations = { late: 'yes' };
    return {};
  });
  e.cluster.create(webapp('a'));
  e.mgr.start();
  await e.clock.advance(0);
  const storedChild = e.cluster.peek(CONFIGMAP, { namespace: 'default', name: 'child' })!;
  const storedApp = e.cluster.peek(WEBAPP, { namespace: 'default', name: 'a' })!;
  assert.deepEqual(storedChild.data, { image: 'nginx' });
  assert.equal(storedChild.metadata.labels, undefined);
  assert.deepEqual(storedApp.status, { phase: 'Running' });
  assert.equal(storedApp.metadata.annotations, undefined);
  // A read of the server agrees with the store (its cached text was not left behind by a change).
  assert.deepEqual(e.cluster.get(CONFIGMAP, { namespace: 'default', name: 'child' }).data, {
    image: 'nginx',
  });
  const phases = e.mgr.traces()[0].phases;
  const write = phases.find((p) => p.phase === 'write')!;
  const status = phases.find((p) => p.phase === 'status')!;
  assert.deepEqual((write.after as KubeObject).data, { image: 'nginx' });
  assert.deepEqual((status.after as KubeObject).status, { phase: 'Running' });
});

test("a failed write's diff phase keeps what was sent when the caller changes its object for another try", async (t) => {
  const e = await env(t);
  e.mgr.addReconciler({ for: WEBAPP }, async (ctx) => {
    const cm = configMap('child', { image: 'nginx' });
    try {
      await ctx.client.create(cm);
    } catch {
      // AlreadyExists: the same object, renamed and changed, is sent again.
      cm.metadata.name = 'child-2';
      (cm.data as Record<string, string>).image = 'retried';
      await ctx.client.create(cm);
    }
    return {};
  });
  e.cluster.create(configMap('child'));
  e.cluster.create(webapp('a'));
  e.mgr.start();
  await e.clock.advance(0);
  const trace = e.mgr.traces()[0];
  assert.deepEqual(
    trace.calls.map((c) => `${c.verb} ${c.name} ${c.code}`),
    ['create child 409', 'create child-2 201'],
  );
  const sent = trace.phases
    .filter((p) => p.phase === 'diff')
    .map((p) => p.diff![0].after as KubeObject);
  assert.deepEqual(
    sent.map((o) => [o.metadata.name, (o.data as Record<string, string>).image]),
    [
      ['child', 'nginx'],
      ['child-2', 'retried'],
    ],
  );
});
