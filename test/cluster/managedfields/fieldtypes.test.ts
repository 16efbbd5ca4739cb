/**
 * The schema field management reads from the release's OpenAPI (built-ins) and a CRD's
 * structural schema (custom resources), by kube-openapi's schemaconv rules.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  builtinFieldType,
  customResourceFieldType,
  fieldOf,
  isAtomic,
} from '../../../src/cluster/managedfields/fieldtypes';
import { widgetCrd } from '../helpers';

test('the OpenAPI extensions decide atomic structs, maps and lists, and list keys', () => {
  const deploy = builtinFieldType('apps/v1', 'Deployment')!;
  const spec = fieldOf(deploy, 'spec');
  assert.equal(isAtomic(fieldOf(spec, 'selector')), true, 'LabelSelector is atomic');
  const podSpec = fieldOf(fieldOf(spec, 'template'), 'spec');
  assert.equal(isAtomic(fieldOf(podSpec, 'nodeSelector')), true, 'nodeSelector is atomic');
  const ports = fieldOf(builtinFieldType('v1', 'Service')!, 'spec');
  const list = fieldOf(ports, 'ports');
  assert.equal(list.k === 'list' && list.keys.join(), 'port,protocol');
  const md = fieldOf(deploy, 'metadata');
  const finalizers = fieldOf(md, 'finalizers');
  assert.equal(finalizers.k === 'list' && finalizers.rel, 'set');
  assert.equal(isAtomic(fieldOf(md, 'labels')), false);
});

test("a custom resource's lists are atomic unless its schema says otherwise", () => {
  const crd = widgetCrd();
  const root = (crd.spec as { versions: { schema: { openAPIV3Schema: object } }[] }).versions[0]
    .schema.openAPIV3Schema;
  const t = customResourceFieldType({
    ...root,
    properties: {
      spec: {
        type: 'object',
        properties: {
          tags: { type: 'array', items: { type: 'string' } },
          ports: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: { type: 'object', properties: { name: { type: 'string' } } },
          },
        },
      },
    },
  });
  const spec = fieldOf(t, 'spec');
  assert.equal(isAtomic(fieldOf(spec, 'tags')), true);
  const ports = fieldOf(spec, 'ports');
  assert.equal(ports.k === 'list' && ports.keys.join(), 'name');
  // Its metadata is ObjectMeta's.
  const finalizers = fieldOf(fieldOf(t, 'metadata'), 'finalizers');
  assert.equal(finalizers.k === 'list' && finalizers.rel, 'set');
});
