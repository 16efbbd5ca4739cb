/**
 * What DELETE answers, as kube-apiserver's generic registry does: a Status of Success naming the
 * deleted object (client-node's typed `V1Status`, the Python client's `V1Status`), the object for
 * the kinds whose storage sets ReturnDeletedObject, and the object while finalizers hold it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CM, POD } from '../helpers';
import { served } from '../http';
import type { Served } from '../http';

let s: Served;
before(async () => {
  s = await served();
});
after(() => s.close());

const del = async (path: string) => {
  const r = await s.call('DELETE', path);
  assert.equal(r.status, 200, r.body);
  return JSON.parse(r.body) as Record<string, unknown>;
};

describe('DELETE', () => {
  it('answers a Status with name, kind (the resource) and uid once a ConfigMap is gone', async () => {
    const made = s.cluster.create({ ...CM, metadata: { name: 'gone', namespace: 'default' } });
    const body = await del('/api/v1/namespaces/default/configmaps/gone');
    assert.deepEqual(body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'gone', kind: 'configmaps', uid: made.metadata.uid },
    });
  });

  it('names the group of a grouped resource', async () => {
    s.cluster.create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'l', namespace: 'default' },
    });
    const body = await del('/apis/coordination.k8s.io/v1/namespaces/default/leases/l');
    assert.deepEqual(body.details, {
      name: 'l',
      group: 'coordination.k8s.io',
      kind: 'leases',
      uid: (body.details as { uid: string }).uid,
    });
    assert.equal(body.kind, 'Status');
  });

  it('answers the object while a finalizer holds it', async () => {
    s.cluster.create({
      ...CM,
      metadata: { name: 'held', namespace: 'default', finalizers: ['example.com/hold'] },
    });
    const body = await del('/api/v1/namespaces/default/configmaps/held');
    assert.equal(body.kind, 'ConfigMap');
    assert.ok((body.metadata as { deletionTimestamp?: string }).deletionTimestamp);
  });

  it('answers 202 for a held object when the legacy orphanDependents=false asked', async () => {
    s.cluster.create({
      ...CM,
      metadata: { name: 'legacy', namespace: 'default', finalizers: ['example.com/hold'] },
    });
    const r = await s.call(
      'DELETE',
      '/api/v1/namespaces/default/configmaps/legacy?orphanDependents=false',
    );
    assert.equal(r.status, 202, r.body);
    assert.equal((JSON.parse(r.body) as { kind: string }).kind, 'ConfigMap');
  });

  it('answers the deleted object for a kind whose storage returns it (Pod)', async () => {
    s.cluster.create({
      ...POD,
      metadata: { name: 'p', namespace: 'default' },
      spec: { containers: [{ name: 'c', image: 'i' }] },
    });
    const body = await del('/api/v1/namespaces/default/pods/p?gracePeriodSeconds=0');
    assert.equal(body.kind, 'Pod');
    assert.equal((body.metadata as { name: string }).name, 'p');
  });
});
