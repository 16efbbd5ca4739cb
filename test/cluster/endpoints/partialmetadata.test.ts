import assert from 'node:assert/strict';
import { test } from 'node:test';
import { partialObjectMetadata } from '../../../src/cluster/endpoints/partialmetadata';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';

const ds = (annotations: Record<string, string>): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'd', annotations },
});

// kube-apiserver makes PartialObjectMetadata (and a Table's rows) from the internal object,
// where apps/v1's conversion has moved these annotations into spec fields.
test("a DaemonSet's template generation annotation is not in its partial metadata", () => {
  const gen = 'deprecated.daemonset.template.generation';
  assert.deepEqual(partialObjectMetadata(ds({ [gen]: '1' }), 'meta.k8s.io/v1'), {
    kind: 'PartialObjectMetadata',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { name: 'd' },
  });
  assert.deepEqual(
    (partialObjectMetadata(ds({ [gen]: '2', keep: 'x' }), 'meta.k8s.io/v1') as KubeObject).metadata
      .annotations,
    { keep: 'x' },
  );
  // A value the conversion cannot parse stays where it is.
  assert.deepEqual(
    (partialObjectMetadata(ds({ [gen]: 'two' }), 'meta.k8s.io/v1') as KubeObject).metadata
      .annotations,
    { [gen]: 'two' },
  );
});

test("another kind's annotations are all kept", () => {
  const cm: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', annotations: { 'deprecated.daemonset.template.generation': '1' } },
  };
  assert.equal((partialObjectMetadata(cm, 'meta.k8s.io/v1') as KubeObject).metadata, cm.metadata);
});
