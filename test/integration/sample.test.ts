import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ROOT, kubectl, ok, serve } from './serve';
import type { Served } from './serve';

// The sample quota operator's CRD and samples, loaded by `serve --manifests` (CRDs first).
const SAMPLE = join(ROOT, 'samples', 'quota-operator', 'config');
let s: Served;
before(async () => {
  s = await serve([
    '--manifests',
    join(SAMPLE, 'samples'),
    '--manifests',
    join(SAMPLE, 'crd', 'bases'),
  ]);
});
after(async () => {
  await s?.stop();
});

test('serve --manifests loads the sample CRD, WebApps and ResourceQuota in dependency order', async () => {
  assert.match(s.output(), /Loaded 4 objects/);
  const out = await ok(s.kubeconfig, ['get', 'webapps']);
  assert.match(out.split('\n')[0], /^NAME\s+DESIRED\s+READY\s+PHASE\s+AGE/);
  assert.match(out, /blog\s+1/);
  assert.match(out, /shop\s+3/);
  assert.equal(
    await ok(s.kubeconfig, ['get', 'quota', 'compute', '-o', 'jsonpath={.spec.hard.pods}']),
    '3',
  );
});

test('the sample schema refuses a negative replica count with the apiserver wording', async () => {
  const r = await kubectl(
    s.kubeconfig,
    ['apply', '-f', '-'],
    'apiVersion: apps.example.com/v1\nkind: WebApp\nmetadata: {name: x}\nspec: {image: nginx, replicas: -1}\n',
  );
  assert.notEqual(r.code, 0);
  assert.match(
    r.stderr,
    /spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0/,
  );
});

test('the quota of 3 pods refuses a fourth pod with the exceeded-quota message', async () => {
  for (const n of ['q1', 'q2', 'q3']) await ok(s.kubeconfig, ['run', n, '--image=nginx:1.27']);
  const r = await kubectl(s.kubeconfig, ['run', 'q4', '--image=nginx:1.27']);
  assert.notEqual(r.code, 0);
  assert.match(
    r.stderr,
    /pods "q4" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=3, limited: pods=3/,
  );
});
