import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import type { StatusError } from '../../../src/cluster/apimachinery/errors';
import { validateResourceYaml } from '../../../src/cluster/apiextensions/yamlvalidation';
import { newCluster } from '../helpers';

/** A CRD with nested lists of objects, a map, a preserved subtree, a CEL rule and a status subresource. */
const CRD: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'webapps.apps.example.com' },
  spec: {
    group: 'apps.example.com',
    scope: 'Namespaced',
    names: { plural: 'webapps', singular: 'webapp', kind: 'WebApp' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['image'],
                properties: {
                  image: {
                    type: 'string',
                    minLength: 1,
                    'x-kubernetes-validations': [
                      {
                        rule: 'self == self.trim()',
                        message: 'image must not have leading or trailing whitespace',
                      },
                    ],
                  },
                  replicas: { type: 'integer', minimum: 0, maximum: 50, default: 1 },
                  tier: { type: 'string', enum: ['web', 'worker'] },
                  routes: {
                    type: 'array',
                    items: {
                      type: 'object',
                      required: ['path'],
                      properties: {
                        path: { type: 'string' },
                        ports: {
                          type: 'array',
                          items: {
                            type: 'object',
                            properties: { port: { type: 'integer', maximum: 65535 } },
                          },
                        },
                      },
                    },
                  },
                  env: { type: 'object', additionalProperties: { type: 'string' } },
                  extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
              status: {
                type: 'object',
                properties: { phase: { type: 'string', enum: ['Running'] } },
              },
            },
          },
        },
      },
    ],
  },
};

function served() {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(CRD);
  return cluster;
}

/** Each problem as `line: severity message`, the line 1-based where its range starts. */
function problems(text: string, cluster = served()): string[] {
  const { problems } = validateResourceYaml(text, cluster);
  return problems.map((p) => {
    const line = text.slice(0, p.range.start).split('\n').length;
    return `${line}: ${p.severity} ${p.message}`;
  });
}

/** The text each problem marks. */
function marked(text: string, cluster = served()): string[] {
  return validateResourceYaml(text, cluster).problems.map((p) =>
    text.slice(p.range.start, p.range.end),
  );
}

const NOT_CHECKED =
  '1: warning <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

const HEAD = `apiVersion: apps.example.com/v1
kind: WebApp
metadata:
  name: shop
  namespace: default
`;

test('a wrong type is the apiserver 422 message, marked on the value', () => {
  const text = `${HEAD}spec:\n  image: nginx\n  replicas: "three"\n`;
  assert.deepEqual(problems(text), [
    '8: error spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    // As the apiserver: the CEL rules wait for a value of the right shape, and it says so.
    NOT_CHECKED,
  ]);
  assert.deepEqual(marked(text).slice(0, 1), ['"three"']);
});

test('the same document is what the cluster refuses with the same words', () => {
  const cluster = served();
  const text = `${HEAD}spec:\n  image: nginx\n  replicas: "three"\n  tier: batch\n`;
  const obj = {
    apiVersion: 'apps.example.com/v1',
    kind: 'WebApp',
    metadata: { name: 'shop', namespace: 'default' },
    spec: { image: 'nginx', replicas: 'three', tier: 'batch' },
  } as unknown as KubeObject;
  let refused: StatusError | undefined;
  try {
    cluster.patch(obj, { namespace: 'default', name: 'shop' }, obj, 'apply', {
      fieldManager: 'test',
      force: true,
    });
  } catch (err) {
    refused = err as StatusError;
  }
  const causes = (refused?.status.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
  assert.equal(causes.length, 3);
  assert.deepEqual(
    validateResourceYaml(text, cluster).problems.map((p) => p.message),
    causes,
  );
});

test('a missing required field is marked on the key of the object that lacks it', () => {
  const text = `${HEAD}spec:\n  replicas: 2\n`;
  assert.deepEqual(problems(text), ['6: error spec.image: Required value', NOT_CHECKED]);
  assert.deepEqual(marked(text).slice(0, 1), ['spec']);
});

test('enum, bounds and CEL rules, each on its own line', () => {
  const text = `${HEAD}spec:\n  image: nginx\n  replicas: 51\n  tier: batch\n`;
  assert.deepEqual(problems(text), [
    '8: error spec.replicas: Invalid value: 51: spec.replicas in body should be less than or equal to 50',
    '9: error spec.tier: Unsupported value: "batch": supported values: "web", "worker"',
    NOT_CHECKED,
  ]);
  // Once the shape is right, the CEL rule runs.
  assert.deepEqual(problems(`${HEAD}spec:\n  image: " nginx"\n  replicas: 5\n`), [
    '7: error spec.image: Invalid value: " nginx": image must not have leading or trailing whitespace',
  ]);
});

test('nested paths and list indexes land on the item they name', () => {
  const text = `${HEAD}spec:
  image: nginx
  routes:
    - path: /
      ports:
        - port: 80
        - port: 70000
    - ports:
        - port: http
`;
  assert.deepEqual(problems(text), [
    '12: error spec.routes[0].ports[1].port: Invalid value: 70000: spec.routes[0].ports[1].port in body should be less than or equal to 65535',
    '13: error spec.routes[1].path: Required value',
    '14: error spec.routes[1].ports[0].port: Invalid value: "string": spec.routes[1].ports[0].port in body must be of type integer: "string"',
    NOT_CHECKED,
  ]);
  // A list item without the field is marked by its first line.
  assert.equal(marked(text)[1], 'ports:');
});

test('a map value of the wrong type is found under a dotted key', () => {
  const text = `${HEAD}spec:\n  image: nginx\n  env:\n    app.kubernetes.io/name: 3\n`;
  assert.deepEqual(problems(text), [
    '9: error spec.env.app.kubernetes.io/name: Invalid value: "integer": spec.env.app.kubernetes.io/name in body must be of type string: "integer"',
    NOT_CHECKED,
  ]);
});

test('unknown fields are pruned as the apiserver prunes them: a warning, none in a preserved subtree', () => {
  const text = `${HEAD}spec:\n  image: nginx\n  colour: red\n  extra:\n    anything: [1]\nsurplus: 1\n`;
  assert.deepEqual(problems(text), [
    '8: warning unknown field "spec.colour"',
    '11: warning unknown field "surplus"',
  ]);
  assert.deepEqual(marked(text), ['colour', 'surplus']);
  // Pruned, not refused: the cluster takes the same object and drops the fields.
  const cluster = served();
  const obj = {
    apiVersion: 'apps.example.com/v1',
    kind: 'WebApp',
    metadata: { name: 'shop', namespace: 'default' },
    spec: { image: 'nginx', colour: 'red', extra: { anything: [1] } },
    surplus: 1,
  } as unknown as KubeObject;
  const saved = cluster.patch(obj, { namespace: 'default', name: 'shop' }, obj, 'apply', {
    fieldManager: 'test',
    force: true,
  });
  assert.deepEqual(saved.spec, { image: 'nginx', extra: { anything: [1] }, replicas: 1 });
});

test('an unknown metadata field refuses the apply, as structured-merge-diff words it', () => {
  const text = `${HEAD}  colour: red\nspec:\n  image: nginx\n`;
  assert.deepEqual(problems(text), [
    '6: error failed to create typed patch object (default/shop; apps.example.com/v1, Kind=WebApp): .metadata.colour: field not declared in schema',
  ]);
  assert.deepEqual(marked(text), ['colour']);
});

test('ObjectMeta is validated: a bad label value is marked on itself, not on the labels', () => {
  const text = `${HEAD}  labels:\n    app: "not valid!"\nspec:\n  image: nginx\n`;
  const [first] = problems(text);
  assert.match(first ?? '', /^7: error metadata\.labels: Invalid value: "not valid!": /);
  assert.deepEqual(marked(text), ['"not valid!"']);
});

test('the status behind a status subresource is ignored, as an apply to the resource ignores it', () => {
  const text = `${HEAD}spec:\n  image: nginx\nstatus:\n  phase: Broken\n  bogus: 1\n`;
  assert.deepEqual(problems(text), []);
});

test('YAML syntax errors are on their line; kinds the cluster does not serve are left alone', () => {
  const text = `${HEAD}spec:\n  image: a: b\n  replicas: 2\n`;
  assert.deepEqual(problems(text), [
    '7: error Nested mappings are not allowed in compact mappings',
  ]);
  const other = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: 1\n`;
  const result = validateResourceYaml(other, served());
  assert.deepEqual(result, { problems: [], servedKinds: false });
});

test('each document of a file is checked on its own lines', () => {
  const text = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n---\n${HEAD}spec:\n  image: nginx\n  replicas: -1\n`;
  const result = validateResourceYaml(text, served());
  assert.equal(result.servedKinds, true);
  assert.deepEqual(problems(text), [
    '13: error spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
  ]);
});
