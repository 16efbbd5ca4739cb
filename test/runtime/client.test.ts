/** The instrumented client's write phases: what the trace keeps of a write. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/cluster/types';
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
