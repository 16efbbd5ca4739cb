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
