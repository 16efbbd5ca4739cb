/**
 * The root CA publisher: once the cluster is served, every active namespace holds the ConfigMap
 * kube-root-ca.crt with the serving CA, as kube-controller-manager's root-ca-cert-publisher keeps
 * it — put back when deleted, mended when edited, not published before the cluster is served nor
 * by an apiserver without a controller manager.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROOT_CA_CONFIGMAP } from '../../../src/cluster/controllers/rootcacertpublisher';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { flush, newCluster } from '../helpers';
import type { Cluster } from '../../../src/cluster/cluster';
import { ServiceAccountTokens } from '../../../src/cluster/auth/serviceaccounttoken';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const rootCA = (cm: KubeObject | undefined) => (cm as { data?: Record<string, string> })?.data;

/** The cluster served with the CA (and a signing key the publisher does not use). */
function served(cluster: Cluster): void {
  const tokens = new ServiceAccountTokens('https://x', ['https://x'], cluster, () => 0);
  cluster.served({ caPem: CA, serviceAccountTokens: tokens });
}

function namespace(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
}

test('every namespace gets kube-root-ca.crt with the serving CA once the cluster is served', async () => {
  const { cluster, clock } = newCluster();
  await flush(clock);
  assert.equal(
    cluster.peek(CONFIGMAP, { namespace: 'default', name: ROOT_CA_CONFIGMAP }),
    undefined,
  );
  served(cluster);
  await flush(clock);
  for (const ns of ['default', 'kube-system', 'kube-public']) {
    const cm = cluster.peek(CONFIGMAP, { namespace: ns, name: ROOT_CA_CONFIGMAP });
    assert.deepEqual(rootCA(cm), { 'ca.crt': CA }, ns);
    assert.match(cm!.metadata.annotations!['kubernetes.io/description']!, /^Contains a CA bundle/);
    assert.equal(cm!.metadata.managedFields?.[0]?.manager, 'kube-controller-manager');
  }
  cluster.create(namespace('team'));
  await flush(clock);
  assert.deepEqual(
    rootCA(cluster.peek(CONFIGMAP, { namespace: 'team', name: ROOT_CA_CONFIGMAP })),
    { 'ca.crt': CA },
  );
});

test('a deleted kube-root-ca.crt is put back and an edited one mended', async () => {
  const { cluster, clock } = newCluster();
  served(cluster);
  await flush(clock);
  const key = { namespace: 'default', name: ROOT_CA_CONFIGMAP };
  cluster.delete(CONFIGMAP, key);
  await flush(clock);
  assert.deepEqual(rootCA(cluster.peek(CONFIGMAP, key)), { 'ca.crt': CA });
  const edited = structuredClone(cluster.get(CONFIGMAP, key)) as KubeObject & {
    data: Record<string, string>;
  };
  edited.data = { 'ca.crt': 'not a CA', extra: 'x' };
  delete edited.metadata.annotations;
  cluster.update(edited);
  await flush(clock);
  const mended = cluster.get(CONFIGMAP, key);
  assert.deepEqual(rootCA(mended), { 'ca.crt': CA });
  assert.ok(mended.metadata.annotations?.['kubernetes.io/description']);
});

test('a terminating namespace is left to the namespace controller', async () => {
  const { cluster, clock } = newCluster();
  served(cluster);
  cluster.create(namespace('gone'));
  await flush(clock);
  cluster.delete({ apiVersion: 'v1', kind: 'Namespace' }, { name: 'gone' });
  for (let i = 0; i < 5; i++) {
    await flush(clock);
    await clock.advance(1000);
  }
  assert.equal(cluster.peek({ apiVersion: 'v1', kind: 'Namespace' }, { name: 'gone' }), undefined);
  assert.equal(cluster.peek(CONFIGMAP, { namespace: 'gone', name: ROOT_CA_CONFIGMAP }), undefined);
});

test('an apiserver without a controller manager publishes nothing', async () => {
  const { cluster, clock } = newCluster({ controllerManager: false });
  served(cluster);
  await flush(clock);
  assert.equal(
    cluster.peek(CONFIGMAP, { namespace: 'default', name: ROOT_CA_CONFIGMAP }),
    undefined,
  );
});
