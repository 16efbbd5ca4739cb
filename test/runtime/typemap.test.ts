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

  it('answers from its recent types as from its maps: more types than slots, a value set again, a clear', () => {
    const m = new TypeMap<string>();
    const types = Array.from({ length: 7 }, (_, i) => ({
      apiVersion: `g${i % 2}/v1`,
      kind: `K${i}`,
    }));
    for (const t of types) m.set(t, t.kind);
    for (let round = 0; round < 3; round++)
      for (const t of [...types].reverse()) assert.equal(m.get({ ...t }), t.kind);
    // A value set again is what a type found before now answers (it sits in a recent slot).
    m.set({ apiVersion: 'g0/v1', kind: 'K0' }, 'changed');
    assert.equal(m.get({ apiVersion: 'g0/v1', kind: 'K0' }), 'changed');
    // Same kind in another version, same version with another kind: not the recent one.
    assert.equal(m.get({ apiVersion: 'g1/v1', kind: 'K0' }), undefined);
    assert.equal(m.get({ apiVersion: 'g0/v1', kind: 'K9' }), undefined);
    m.clear();
    for (const t of types) assert.equal(m.get(t), undefined);
  });
});
