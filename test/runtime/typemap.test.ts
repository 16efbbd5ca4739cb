/** A map keyed by apiVersion and kind. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TypeMap } from '../../src/runtime/typemap';

describe('TypeMap', () => {
  it('finds a value by an equal type, not only the same object', () => {
    const m = new TypeMap<number>();
    m.set({ apiVersion: 'apps/v1', kind: 'Deployment' }, 1);
    assert.equal(m.get({ apiVersion: 'apps/v1', kind: 'Deployment' }), 1);
  });

  it('tells kinds of one version and versions of one kind apart', () => {
    const m = new TypeMap<string>();
    m.set({ apiVersion: 'apps/v1', kind: 'Deployment' }, 'deployments');
    m.set({ apiVersion: 'apps/v1', kind: 'ReplicaSet' }, 'replicasets');
    m.set({ apiVersion: 'apps/v1beta1', kind: 'Deployment' }, 'old');
    assert.equal(m.get({ apiVersion: 'apps/v1', kind: 'ReplicaSet' }), 'replicasets');
    assert.equal(m.get({ apiVersion: 'apps/v1beta1', kind: 'Deployment' }), 'old');
    assert.equal(m.get({ apiVersion: 'v1', kind: 'Deployment' }), undefined);
    assert.deepEqual([...m.values()].sort(), ['deployments', 'old', 'replicasets']);
    m.clear();
    assert.deepEqual([...m.values()], []);
  });
});
