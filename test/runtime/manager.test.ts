import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PhaseRecord } from '../../src/runtime/trace';
import { CONFIGMAP, configMap, env } from './helpers';

test("the manager relays a controller's phase events only while someone listens to it", async (t) => {
  const e = await env(t, { stepper: false });
  const ctrl = e.mgr.addReconciler({ for: CONFIGMAP }, async (ctx, req) => {
    await ctx.client.get(CONFIGMAP, req);
    return {};
  });
  // Nobody listens: the controller sees no listener, so it builds no event per phase.
  assert.equal(ctrl.has('phase'), false);

  const heard: PhaseRecord['phase'][] = [];
  const off = e.mgr.on('phase', ({ phase }) => heard.push(phase.phase));
  assert.equal(ctrl.has('phase'), true);
  e.cluster.create(configMap('a'));
  e.mgr.start();
  await e.clock.advance(0);
  assert.deepEqual(heard, ['enqueue', 'dequeue', 'reconcile', 'read', 'result']);

  off();
  assert.equal(ctrl.has('phase'), false);
  e.cluster.create(configMap('b'));
  await e.clock.advance(0);
  assert.equal(heard.length, 5);
  assert.equal(e.mgr.traces().length, 2);
});

test('a controller added while the manager has listeners is relayed at once', async (t) => {
  const e = await env(t, { stepper: false });
  const ends: string[] = [];
  e.mgr.on('reconcileEnd', (trace) => ends.push(trace.key));
  e.mgr.addReconciler({ for: CONFIGMAP }, async () => ({}));
  e.cluster.create(configMap('a'));
  e.mgr.start();
  await e.clock.advance(0);
  assert.deepEqual(ends, ['default/a']);
});

test("a finished reconcile's phase and call lists hold just their entries", async (t) => {
  const e = await env(t, { stepper: false });
  e.mgr.addReconciler({ for: CONFIGMAP }, async (ctx, req) => {
    await ctx.client.get(CONFIGMAP, req);
    return {};
  });
  e.cluster.create(configMap('a'));
  e.mgr.start();
  await e.clock.advance(0);
  const [trace] = e.mgr.traces();
  assert.deepEqual(
    trace.phases.map((p) => p.phase),
    ['enqueue', 'dequeue', 'reconcile', 'read', 'result'],
  );
  assert.equal(trace.calls.length, 1);
  assert.equal(trace.calls[0], trace.phases[3].call);
});
