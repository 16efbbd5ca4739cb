/**
 * An applied configuration is typed before it is merged (structured-merge-diff's typed patch
 * object): a field the kind does not declare, or a value of the wrong type, is refused with the
 * words and the 500 a kube-apiserver 1.36 answers (read off one).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newCluster } from './helpers';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const KEY = { namespace: 'default', name: 'noua' };

test('an applied field the kind does not declare is "not declared in schema", status fields too', () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create({ ...CM, metadata: { name: 'noua', namespace: 'default' }, data: { a: 'b' } });
  assert.throws(
    () =>
      cluster.patch(
        CM,
        KEY,
        { ...CM, metadata: { name: 'noua', bogusmeta: 1 }, data: { a: 'b' } },
        'apply',
        { fieldManager: 'x' },
      ),
    {
      code: 500,
      message:
        'failed to create typed patch object (/noua; /v1, Kind=ConfigMap): .metadata.bogusmeta: field not declared in schema',
    },
  );
  const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } };
  cluster.create(node);
  assert.throws(
    () =>
      cluster.patch(
        node,
        { name: 'n1' },
        { ...node, status: { invalidStatusField: 'x' } },
        'apply',
        { fieldManager: 'x', subresource: 'status' },
      ),
    /\.status\.invalidStatusField: field not declared in schema/,
  );
});

test('an applied value of the wrong type is named as structured-merge-diff prints it', () => {
  const { cluster } = newCluster({ controllers: false });
  assert.throws(
    () =>
      cluster.patch(
        CM,
        KEY,
        { ...CM, metadata: { name: 'noua', namespace: 'default' }, data: { a: { b: [1, 'x'] } } },
        'apply',
        { fieldManager: 'x' },
      ),
    {
      code: 500,
      message:
        'failed to create typed patch object (default/noua; /v1, Kind=ConfigMap): .data.a: expected string, got &value.valueUnstructured{Value:map[string]interface {}{"b":[]interface {}{1, "x"}}}',
    },
  );
});
