/**
 * metadata.generation exists on the built-in kinds whose strategy sets it (generated from the
 * release's PrepareForCreate functions), and only there.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hasGeneration } from '../../../src/cluster/api/generation';
import { CM, POD, newCluster } from '../helpers';

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default' },
  // On a node, so its deletion is graceful (an unscheduled pod is deleted at once).
  spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx:1.27' }] },
};

test('the release says which built-in kinds have a generation', () => {
  for (const [group, kind] of [
    ['', 'Pod'],
    ['', 'ReplicationController'],
    ['apps', 'StatefulSet'],
    ['networking.k8s.io', 'NetworkPolicy'],
    ['scheduling.k8s.io', 'PriorityClass'],
    ['discovery.k8s.io', 'EndpointSlice'],
    ['apiextensions.k8s.io', 'CustomResourceDefinition'],
  ])
    assert.equal(hasGeneration(group, kind), true, `${group}/${kind}`);
  for (const [group, kind] of [
    ['', 'ConfigMap'],
    ['', 'Namespace'],
    ['', 'Service'],
    ['rbac.authorization.k8s.io', 'Role'],
  ])
    assert.equal(hasGeneration(group, kind), false, `${group}/${kind}`);
});

test('a pod is created at generation 1, a ConfigMap without one', () => {
  const { cluster } = newCluster({ controllers: false });
  assert.equal(cluster.create(pod).metadata.generation, 1);
  const cm = cluster.create({ ...CM, metadata: { name: 'c', namespace: 'default' } });
  assert.equal(cm.metadata.generation, undefined);
});

test("a pod's generation follows its spec, and its graceful deletion", () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(pod);
  const key = { namespace: 'default', name: 'p' };
  const labelled = cluster.get(POD, key);
  labelled.metadata.labels = { a: 'b' };
  assert.equal(cluster.update(labelled).metadata.generation, 1, 'metadata is not the spec');
  const changed = cluster.get(POD, key);
  (changed.spec as { activeDeadlineSeconds?: number }).activeDeadlineSeconds = 30;
  assert.equal(cluster.update(changed).metadata.generation, 2);
  const deleting = cluster.delete(POD, key);
  assert.ok(deleting.metadata.deletionTimestamp);
  assert.equal(deleting.metadata.generation, 3);
});

test("an EndpointSlice's generation moves when its labels change, as its strategy compares them", () => {
  const { cluster } = newCluster({ controllers: false });
  const ref = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice' };
  const key = { namespace: 'default', name: 's' };
  cluster.create({ ...ref, metadata: { ...key }, addressType: 'IPv4', endpoints: [] });
  const labelled = cluster.patch(ref, key, { metadata: { labels: { a: 'b' } } }, 'merge');
  assert.equal(labelled.metadata.generation, 2);
  // Annotations are metadata it does not compare.
  const annotated = cluster.patch(ref, key, { metadata: { annotations: { a: 'b' } } }, 'merge');
  assert.equal(annotated.metadata.generation, 2);
});
