import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OBJECT_META, goTypeOf } from '../../../src/cluster/api/apitypes';
import { goTypeErrorMessage, typedDecode } from '../../../src/cluster/api/gotypes';

function firstError(group: string, kind: string, obj: unknown): string | undefined {
  const { error } = typedDecode(obj, goTypeOf(group, 'v1', kind, false), false);
  return error && goTypeErrorMessage(error);
}

test('a value of the wrong JSON kind is reported as Go UnmarshalTypeError renders it', () => {
  assert.equal(
    firstError('', 'ConfigMap', { metadata: { name: 42 } }),
    'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string',
  );
  assert.equal(
    firstError('', 'ConfigMap', { metadata: { labels: ['a'] } }),
    'json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string',
  );
  // Map values and list items keep the field path of their map or list.
  assert.equal(
    firstError('', 'ConfigMap', { data: { a: 'x', b: { c: 1 } } }),
    'json: cannot unmarshal object into Go struct field ConfigMap.data of type string',
  );
  assert.equal(
    firstError('', 'ConfigMap', { metadata: { finalizers: 'x' } }),
    'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string',
  );
  assert.equal(
    firstError('apps', 'Deployment', { spec: { replicas: 'abc' } }),
    'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
  );
  assert.equal(
    firstError('apps', 'Deployment', {
      spec: { template: { spec: { containers: [{ name: 'a' }, { name: true }] } } },
    }),
    'json: cannot unmarshal bool into Go struct field Container.spec.template.spec.containers.name of type string',
  );
  assert.equal(
    firstError('', 'ConfigMap', { metadata: 'x' }),
    'json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta',
  );
});

test('integers out of range or fractional name the number, as Go does', () => {
  assert.equal(
    firstError('apps', 'Deployment', { spec: { replicas: 1.5 } }),
    'json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32',
  );
  assert.equal(
    firstError('apps', 'Deployment', { spec: { replicas: 2 ** 31 } }),
    'json: cannot unmarshal number 2147483648 into Go struct field DeploymentSpec.spec.replicas of type int32',
  );
  assert.equal(firstError('apps', 'Deployment', { spec: { replicas: 3 } }), undefined);
});

test('custom unmarshallers: IntOrString, Quantity and []byte', () => {
  assert.equal(
    firstError('apps', 'Deployment', {
      spec: { strategy: { rollingUpdate: { maxSurge: true } } },
    }),
    'json: cannot unmarshal bool into Go value of type int32',
  );
  assert.equal(
    firstError('apps', 'Deployment', {
      spec: { strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } } },
    }),
    undefined,
  );
  assert.match(
    firstError('', 'ResourceQuota', { spec: { hard: { pods: [1] } } }) ?? '',
    /^quantities must match the regular expression/,
  );
  assert.equal(
    firstError('', 'ResourceQuota', { spec: { hard: { pods: 2, cpu: '1' } } }),
    undefined,
  );
  assert.equal(
    firstError('', 'Secret', { data: { a: 'aGk=', b: 'abcde' } }),
    'illegal base64 data at input byte 4',
  );
  assert.equal(
    firstError('', 'Secret', { data: { a: 'a!==' } }),
    'illegal base64 data at input byte 1',
  );
});

test('null is accepted anywhere, as Go leaves the field as it is', () => {
  assert.equal(
    firstError('', 'ConfigMap', { metadata: { name: null, labels: null }, data: null }),
    undefined,
  );
});

test('undeclared fields are dropped and reported; every field the Go types declare is kept', () => {
  const obj = {
    apiVersion: 'v1',
    kind: 'Pod',
    bogus: { a: 1 },
    metadata: { name: 'p', extra: 1 },
    spec: { containers: [{ name: 'c', image: 'i', stdin: true }], hostPID: true },
  };
  const r = typedDecode(obj, goTypeOf('', 'v1', 'Pod', false), true);
  assert.equal(r.error, undefined);
  assert.deepEqual(r.unknown, ['bogus', 'metadata.extra']);
  assert.deepEqual(Object.keys(obj), ['apiVersion', 'kind', 'metadata', 'spec']);
  assert.deepEqual(obj.metadata, { name: 'p' });
  assert.equal(obj.spec.hostPID, true);
  assert.equal(obj.spec.containers[0].stdin, true);
});

test('every built-in kind is typed to its deepest field, from the generated API graph', () => {
  const obj = {
    spec: {
      template: {
        spec: {
          affinity: {
            nodeAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, bogus: 2 }],
            },
          },
          containers: [
            {
              name: 'c',
              securityContext: { seccompProfile: { type: 'RuntimeDefault', extra: 1 } },
            },
          ],
        },
      },
    },
  };
  const r = typedDecode(obj, goTypeOf('apps', 'v1', 'Deployment', false), true);
  assert.deepEqual(r.unknown, [
    'spec.template.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].bogus',
    'spec.template.spec.containers[0].securityContext.seccompProfile.extra',
  ]);
  assert.equal(
    firstError('resource.k8s.io', 'ResourceClaim', {
      spec: { devices: { requests: [{ name: 1 }] } },
    }),
    'json: cannot unmarshal number into Go struct field DeviceRequest.spec.devices.requests.name of type string',
  );
});

test('custom resources are typed only in their metadata', () => {
  const t = goTypeOf('example.com', 'v1', 'Widget', true);
  assert.equal(t.fields.metadata, OBJECT_META);
  const r = typedDecode({ spec: { anything: [1] }, metadata: { labels: { a: 1 } } }, t, false);
  assert.equal(
    r.error && goTypeErrorMessage(r.error),
    'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string',
  );
});
