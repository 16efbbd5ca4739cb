/**
 * Real kubectl against `reconcile-studio serve`: the pinned release's whole API is discovered,
 * explained and accepted, as against a kube-apiserver of that release.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { apiData } from '../../src/cluster/api/apidata';
import { kubectl, ok, serve } from './serve';
import type { Served } from './serve';

let s: Served;
before(async () => {
  s = await serve();
});
after(async () => {
  await s?.stop();
});

const CRONJOB = `apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: default}
spec:
  schedule: "0 1 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: c, image: busybox, args: [date]}]
`;

test('kubectl api-resources lists every stored and review resource of the release', async () => {
  const out = await ok(s.kubeconfig, ['api-resources', '--no-headers', '-o', 'name']);
  const listed = new Set(out.trim().split('\n'));
  const expected = apiData().groups.flatMap((g) =>
    g.versions
      // kubectl lists a group's preferred version only.
      .filter((v) => v.version === g.preferredVersion)
      .flatMap((v) =>
        v.list.resources
          .filter((r) => !r.name.includes('/'))
          .map((r) => (g.name ? `${r.name}.${g.name}` : r.name)),
      ),
  );
  assert.ok(expected.length > 60, `${expected.length} resources`);
  assert.deepEqual(
    expected.filter((r) => !listed.has(r)),
    [],
  );
  for (const r of [
    'cronjobs.batch',
    'statefulsets.apps',
    'validatingwebhookconfigurations.admissionregistration.k8s.io',
  ])
    assert.ok(listed.has(r), r);
});

test('kubectl explain cronjob.spec.schedule reads the release schema', async () => {
  const out = await ok(s.kubeconfig, ['explain', 'cronjob.spec.schedule']);
  assert.match(out, /GROUP:\s+batch/);
  assert.match(out, /FIELD: schedule <string>/);
  assert.match(out, /Cron format/);
});

test('kubectl create -f a CronJob, then get it by its short name', async () => {
  await ok(s.kubeconfig, ['create', '-f', '-'], CRONJOB);
  assert.equal(
    await ok(s.kubeconfig, ['get', 'cj', 'nightly', '-o', 'jsonpath={.spec.schedule}']),
    '0 1 * * *',
  );
});

// kubectl finds the fieldValidation parameter in the release's OpenAPI and validates on the
// server, which knows every built-in kind's fields from the generated Go types.
test('kubectl apply --validate=strict refuses an unknown field of a built-in kind', async () => {
  const bad = CRONJOB.replace('name: nightly', 'name: strict').replace(
    'schedule:',
    'bogusField: 1\n  schedule:',
  );
  const r = await kubectl(s.kubeconfig, ['apply', '--validate=strict', '-f', '-'], bad);
  assert.notEqual(r.code, 0, r.stdout);
  assert.match(r.stderr, /unknown field "spec.bogusField"/);
});

// A kind: List (what `kubectl get -o yaml` writes) is validated on the client, with the v2
// document client-go asks for as gnostic protobuf and proto.Unmarshals.
test('kubectl apply -f a List of a ConfigMap, then apply what get -o yaml writes', async () => {
  const list = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: listed, namespace: default, labels: {from: list}}
  data: {a: "1"}
`;
  assert.match(await ok(s.kubeconfig, ['apply', '-f', '-'], list), /configmap\/listed created/);
  const written = await ok(s.kubeconfig, ['get', 'configmaps', '-l', 'from=list', '-o', 'yaml']);
  assert.match(written, /^kind: List$/m);
  const again = await ok(s.kubeconfig, ['apply', '-f', '-'], written.replace('a: "1"', 'a: "2"'));
  assert.match(again, /configmap\/listed configured/);
  assert.equal(
    await ok(s.kubeconfig, ['get', 'configmap', 'listed', '-o', 'jsonpath={.data.a}']),
    '2',
  );
  // Validation runs on that document: an unknown field of a listed item is refused.
  const bad = list.replace('data: {a: "1"}', 'data: {a: "1"}\n  bogus: 1');
  const r = await kubectl(s.kubeconfig, ['apply', '-f', '-'], bad);
  assert.notEqual(r.code, 0, r.stdout);
  assert.match(r.stderr, /unknown field "bogus" in io\.k8s\.api\.core\.v1\.ConfigMap/);
});
