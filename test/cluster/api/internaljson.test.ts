import { test } from 'node:test';
import assert from 'node:assert/strict';
import { internalPodSpec, marshalInternalPodSpec } from '../../../src/cluster/api/internaljson';

test('the internal PodSpec goes by Go names in declaration order, zero values written out', () => {
  const spec = internalPodSpec({ containers: [{ name: 'c', image: 'nginx' }] });
  const keys = Object.keys(spec);
  assert.deepEqual(keys.slice(0, 4), [
    'Volumes',
    'InitContainers',
    'Containers',
    'EphemeralContainers',
  ]);
  assert.equal(spec.Volumes, null);
  assert.equal(spec.ServiceAccountName, '');
  const c = (spec.Containers as Array<Record<string, unknown>>)[0]!;
  assert.equal(c.Name, 'c');
  assert.equal(c.WorkingDir, '');
  assert.equal(c.Stdin, false);
  assert.deepEqual(c.Resources, { Limits: null, Requests: null, Claims: null });
});

test("the conversion's moves: host namespaces into SecurityContext, serviceAccount as the name's alias", () => {
  const spec = internalPodSpec({ hostNetwork: true, serviceAccount: 'old' });
  const sc = spec.SecurityContext as Record<string, unknown>;
  assert.equal(sc.HostNetwork, true);
  assert.equal(sc.HostPID, false);
  assert.equal(spec.ServiceAccountName, 'old');
  assert.equal(
    internalPodSpec({ serviceAccountName: 'new', serviceAccount: 'old' }).ServiceAccountName,
    'new',
  );
  // A SecurityContext is always made, as Convert_v1_PodSpec_To_core_PodSpec makes it.
  assert.equal((internalPodSpec({}).SecurityContext as Record<string, unknown>).HostIPC, false);
});

test("embedded structs are flattened (a Volume's source), map keys sorted, HTML escaped", () => {
  const spec = internalPodSpec({
    volumes: [{ name: 'v', hostPath: { path: '/data' } }],
    nodeSelector: { z: '1', a: '<2>' },
  });
  const v = (spec.Volumes as Array<Record<string, unknown>>)[0]!;
  assert.equal(v.Name, 'v');
  assert.deepEqual(v.HostPath, { Path: '/data', Type: null });
  assert.equal(v.EmptyDir, null);
  assert.deepEqual(Object.keys(spec.NodeSelector as object), ['a', 'z']);
  assert.match(
    marshalInternalPodSpec({ nodeSelector: { a: '<2>' } }),
    /"NodeSelector":\{"a":"\\u003c2\\u003e"\}/,
  );
});
