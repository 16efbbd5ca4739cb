/**
 * The DefaultTolerationSeconds admission plugin over HTTP: pods get the not-ready and unreachable
 * NoExecute tolerations for 300 s unless they already tolerate those taints (an empty key or
 * effect tolerates them too); other kinds and subresources are left alone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { POD } from '../helpers';
import { served } from '../http';
import type { Served } from '../http';

let s: Served;
before(async () => {
  s = await served({}, { controllers: false });
});
after(() => s.close());

const PODS = '/api/v1/namespaces/default/pods';
const NOT_READY = {
  key: 'node.kubernetes.io/not-ready',
  operator: 'Exists',
  effect: 'NoExecute',
  tolerationSeconds: 300,
};
const UNREACHABLE = { ...NOT_READY, key: 'node.kubernetes.io/unreachable' };

async function createPod(name: string, tolerations?: unknown[]): Promise<unknown[]> {
  const r = await s.call('POST', PODS, {
    ...POD,
    metadata: { name },
    spec: { containers: [{ name: 'c', image: 'i:1' }], ...(tolerations ? { tolerations } : {}) },
  });
  assert.equal(r.status, 201, r.body);
  return (JSON.parse(r.body) as { spec: { tolerations: unknown[] } }).spec.tolerations;
}

describe('DefaultTolerationSeconds admission', () => {
  it('adds both NoExecute tolerations with 300 s to a pod without them', async () => {
    assert.deepEqual(await createPod('plain'), [NOT_READY, UNREACHABLE]);
    const stored = s.cluster.get(POD, { namespace: 'default', name: 'plain' });
    assert.deepEqual((stored.spec as { tolerations: unknown[] }).tolerations, [
      NOT_READY,
      UNREACHABLE,
    ]);
  });

  it('keeps a toleration the pod already has and adds only the missing one', async () => {
    const own = {
      key: 'node.kubernetes.io/unreachable',
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: 6000,
    };
    assert.deepEqual(await createPod('own', [own]), [own, NOT_READY]);
  });

  it('counts an empty key or an empty effect as tolerating the taint', async () => {
    const all = { operator: 'Exists' };
    assert.deepEqual(await createPod('all', [all]), [all]);
    const anyEffect = { key: 'node.kubernetes.io/not-ready', operator: 'Exists' };
    assert.deepEqual(await createPod('anyeffect', [anyEffect]), [anyEffect, UNREACHABLE]);
    // A NoSchedule toleration of the same taint does not cover NoExecute.
    const noSchedule = {
      key: 'node.kubernetes.io/not-ready',
      operator: 'Exists',
      effect: 'NoSchedule',
    };
    assert.deepEqual(await createPod('noschedule', [noSchedule]), [
      noSchedule,
      NOT_READY,
      UNREACHABLE,
    ]);
  });

  it('adds them back when an update leaves them out', async () => {
    await createPod('upd');
    const cur = s.cluster.get(POD, { namespace: 'default', name: 'upd' });
    const spec = { ...(cur.spec as Record<string, unknown>) };
    delete spec.tolerations;
    const r = await s.call('PUT', `${PODS}/upd`, { ...cur, spec });
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(
      (JSON.parse(r.body) as { spec: { tolerations: unknown[] } }).spec.tolerations,
      [NOT_READY, UNREACHABLE],
    );
  });

  it('leaves other kinds alone', async () => {
    const r = await s.call('POST', '/apis/apps/v1/namespaces/default/deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: {
        selector: { matchLabels: { app: 'd' } },
        template: {
          metadata: { labels: { app: 'd' } },
          spec: { containers: [{ name: 'c', image: 'i:1' }] },
        },
      },
    });
    assert.equal(r.status, 201, r.body);
    const tmpl = (JSON.parse(r.body) as { spec: { template: { spec: Record<string, unknown> } } })
      .spec.template.spec;
    assert.equal(tmpl.tolerations, undefined);
  });
});
