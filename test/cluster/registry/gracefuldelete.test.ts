/**
 * Graceful Pod deletion over HTTP, as kube-apiserver and a kubelet do it: a DELETE of a running
 * pod marks it (deletionTimestamp at now + grace period, deletionGracePeriodSeconds), watchers
 * see it MODIFIED and it stays Terminating until the kubelet has stopped it and deleted it with
 * grace 0; `gracePeriodSeconds=0` deletes at once. Foreground deletion keeps the owner visible
 * with the `foregroundDeletion` finalizer while a blocking dependent exists.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { VirtualClock } from '../../../src/util/clock';
import { CM, POD } from '../helpers';
import { meta, served } from '../http';
import type { Served } from '../http';

const clock = new VirtualClock(1_000_000);
let s: Served;
before(async () => {
  s = await served(
    {},
    { controllers: true, clock, podReadyDelayMs: 10, podTerminationDelayMs: 5000 },
  );
});
after(() => s.close());

const PODS = '/api/v1/namespaces/default/pods';
async function runningPod(name: string, extra: Record<string, unknown> = {}): Promise<void> {
  const r = await s.call('POST', PODS, {
    ...POD,
    metadata: { name },
    spec: { containers: [{ name: 'c', image: 'i:1' }], ...extra },
  });
  assert.equal(r.status, 201, r.body);
  await clock.advance(100);
  const p = s.cluster.get(POD, { namespace: 'default', name });
  assert.equal((p.status as { phase: string }).phase, 'Running');
}

describe('graceful Pod deletion', () => {
  it('marks the pod Terminating for its grace period until the kubelet deletes it', async () => {
    await runningPod('g', { terminationGracePeriodSeconds: 30 });
    const rv = String(s.cluster.store.resourceVersion);
    let deleted: Record<string, unknown> | undefined;
    const events = await s.watch(
      `${PODS}?watch=1&resourceVersion=${rv}`,
      (evs) => evs.some((e) => e.type === 'MODIFIED' && meta(e.object).deletionTimestamp),
      () =>
        void s.call('DELETE', `${PODS}/g`).then((r) => {
          assert.equal(r.status, 200, r.body);
          deleted = JSON.parse(r.body) as Record<string, unknown>;
        }),
    );
    const marked = meta(events.at(-1)!.object);
    assert.equal(marked.deletionGracePeriodSeconds, 30);
    assert.equal(
      Date.parse(marked.deletionTimestamp as string),
      Math.floor(clock.now() / 1000) * 1000 + 30_000,
    );
    while (!deleted) await new Promise((r) => setImmediate(r));
    assert.equal(deleted.kind, 'Pod');
    assert.equal(meta(deleted).deletionGracePeriodSeconds, 30);
    // Still there (Terminating) until the kubelet is done.
    assert.equal((await s.get(`${PODS}/g`)).status, 200);
    await clock.advance(5000);
    assert.equal((await s.get(`${PODS}/g`)).status, 404);
  });

  it('gracePeriodSeconds=0 deletes a running pod at once, answering it marked as BeforeDelete marks it', async () => {
    await runningPod('now');
    const before = s.cluster.get(POD, { namespace: 'default', name: 'now' });
    const events: Array<{ type: string; grace?: number }> = [];
    const w = s.cluster.watch(POD, { namespace: 'default' }, (e) =>
      events.push({ type: e.type, grace: e.object.metadata.deletionGracePeriodSeconds }),
    );
    const r = await s.call('DELETE', `${PODS}/now?gracePeriodSeconds=0`);
    assert.equal(r.status, 200, r.body);
    const md = meta(JSON.parse(r.body) as Record<string, unknown>);
    assert.ok(md.deletionTimestamp);
    assert.equal(md.deletionGracePeriodSeconds, 0);
    assert.equal(md.generation, (before.metadata.generation ?? 0) + 1);
    assert.equal((await s.get(`${PODS}/now`)).status, 404);
    await clock.advance(0);
    w.stop();
    // The mark is written before the delete: a MODIFIED, then the DELETED.
    assert.deepEqual(
      events.filter((e) => e.grace === 0).map((e) => e.type),
      ['MODIFIED', 'DELETED'],
    );
  });

  it('a second DELETE with a shorter grace period shortens it; a longer one changes nothing', async () => {
    await runningPod('short', { terminationGracePeriodSeconds: 30 });
    await s.call('DELETE', `${PODS}/short`);
    const longer = await s.call('DELETE', `${PODS}/short?gracePeriodSeconds=60`);
    assert.equal(
      meta(JSON.parse(longer.body) as Record<string, unknown>).deletionGracePeriodSeconds,
      30,
    );
    const shorter = await s.call('DELETE', `${PODS}/short?gracePeriodSeconds=2`);
    assert.equal(
      meta(JSON.parse(shorter.body) as Record<string, unknown>).deletionGracePeriodSeconds,
      2,
    );
    // The kubelet now stops it within the shorter period.
    await clock.advance(2000);
    assert.equal((await s.get(`${PODS}/short`)).status, 404);
  });
});

describe('Foreground deletion', () => {
  it('keeps the owner visible with the foregroundDeletion finalizer while a blocking dependent exists', async () => {
    const owner = s.cluster.create({ ...CM, metadata: { name: 'owner', namespace: 'default' } });
    s.cluster.create({
      ...CM,
      metadata: {
        name: 'dependent',
        namespace: 'default',
        finalizers: ['example.com/hold'],
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: 'owner',
            uid: owner.metadata.uid!,
            blockOwnerDeletion: true,
          },
        ],
      },
    });
    const r = await s.call(
      'DELETE',
      '/api/v1/namespaces/default/configmaps/owner?propagationPolicy=Foreground',
    );
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(meta(JSON.parse(r.body) as Record<string, unknown>).finalizers, [
      'foregroundDeletion',
    ]);
    await clock.advance(100);
    const held = await s.get('/api/v1/namespaces/default/configmaps/owner');
    assert.equal(held.status, 200);
    // The dependent goes once its own finalizer is removed; then the owner.
    const dep = s.cluster.get(CM, { namespace: 'default', name: 'dependent' });
    assert.ok(dep.metadata.deletionTimestamp);
    s.cluster.update({ ...dep, metadata: { ...dep.metadata, finalizers: [] } });
    await clock.advance(100);
    assert.equal((await s.get('/api/v1/namespaces/default/configmaps/owner')).status, 404);
  });
});
