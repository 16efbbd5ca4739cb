/** Validation of the strategies: finalizer names, a Pod update that changes what it may not. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StatusError } from '../../../src/cluster/apimachinery/errors';
import { CM, newCluster, widget, widgetCrd } from '../helpers';

test("a built-in's finalizer without a domain must be a standard one, as kube's ValidateFinalizerName says", () => {
  const { cluster } = newCluster({ controllers: false });
  assert.throws(
    () =>
      cluster.create({
        ...CM,
        metadata: { name: 'a', namespace: 'default', finalizers: ['nodomain'] },
      }),
    (err: StatusError) =>
      err.code === 422 &&
      err.message ===
        'ConfigMap "a" is invalid: metadata.finalizers[0]: Invalid value: "nodomain": name is neither a standard finalizer name nor is it fully qualified',
  );
  for (const f of ['example.com/cleanup', 'kubernetes', 'orphan', 'foregroundDeletion'])
    cluster.create({
      ...CM,
      metadata: { name: `ok-${f.length}`, namespace: 'default', finalizers: [f] },
    });
});

test("a custom resource's finalizers are only qualified names, as apimachinery checks them", () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(widgetCrd());
  const w = widget('w');
  w.metadata.finalizers = ['nodomain'];
  assert.deepEqual(cluster.create(w).metadata.finalizers, ['nodomain']);
  const bad = widget('bad');
  bad.metadata.finalizers = ['Not Qualified'];
  assert.throws(
    () => cluster.create(bad),
    (err: StatusError) => err.code === 422 && /metadata\.finalizers\[0\]/.test(err.message),
  );
});

test("a Pod's forbidden update names the difference as a diff of the internal PodSpecs", () => {
  const { cluster } = newCluster({ controllers: false });
  const pod = cluster.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default' },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  });
  const spec = pod.spec as { containers: Array<Record<string, unknown>> };
  spec.containers[0]!.image = 'nginx:2'; // allowed, so not in the diff
  spec.containers[0]!.ports = [{ containerPort: 80 }];
  assert.throws(
    () => cluster.update(pod),
    (e: unknown) => {
      const m = (e as Error).message;
      return (
        m.includes('(allow it to be set to 1 if it was previously negative)\n@@ -') &&
        m.includes('\n-   "Ports": null,\n+   "Ports": [\n') &&
        m.includes('"ContainerPort": 80,') &&
        !m.includes('nginx:2')
      );
    },
  );
  cluster.close();
});
