import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { objectByKind } from '../../../src/vscode/model/clusterobject';
import { CM, newCluster } from '../../cluster/helpers';

describe("the embedded cluster's object by a Go debugger's kind", () => {
  it('reads a namespaced object by kind and key, and a cluster-scoped one without its namespace', () => {
    const { cluster } = newCluster();
    cluster.create({
      ...CM,
      metadata: { name: 'settings', namespace: 'default' },
      data: { a: '1' },
    });
    assert.deepEqual(objectByKind(cluster, 'ConfigMap', 'default', 'settings')?.data, { a: '1' });
    assert.equal(
      objectByKind(cluster, 'Namespace', 'ignored', 'default')?.metadata.name,
      'default',
    );
  });

  it('says nothing of an object deleted since, or of a kind the cluster does not serve', () => {
    const { cluster } = newCluster();
    assert.equal(objectByKind(cluster, 'ConfigMap', 'default', 'gone'), undefined);
    assert.equal(objectByKind(cluster, 'WebApp', 'default', 'blog'), undefined);
  });
});
