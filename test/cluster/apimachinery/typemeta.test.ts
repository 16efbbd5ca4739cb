import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withoutTypeMeta, withoutTypeMetaJSON } from '../../../src/cluster/apimachinery/typemeta';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';

const orders: KubeObject[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { kind: 'x' } },
  { metadata: { name: 'a' }, data: { apiVersion: 'v1' }, kind: 'ConfigMap', apiVersion: 'v1' },
  { metadata: { name: 'a' }, kind: 'ConfigMap', data: { k: 'v' }, apiVersion: 'v1' },
  {
    kind: 'Pod',
    metadata: {
      name: 'p',
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'q', uid: 'u' }],
    },
    apiVersion: 'v1',
  } as KubeObject,
];

test('a list item loses only its own top-level apiVersion and kind, whatever their place', () => {
  for (const o of orders) {
    const text = withoutTypeMetaJSON(o, JSON.stringify(o));
    const { apiVersion: _a, kind: _k, ...expected } = o;
    void _a;
    void _k;
    assert.deepEqual(JSON.parse(text), expected);
    assert.equal(
      o.apiVersion !== undefined && o.kind !== undefined,
      true,
      'the object is not changed',
    );
  }
});

test('withoutTypeMeta copies, leaving the stored object whole', () => {
  const o = orders[0];
  const c = withoutTypeMeta(o);
  assert.equal('kind' in c, false);
  assert.equal(o.kind, 'ConfigMap');
});
