import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { request } from 'node:https';
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import { WIDGET_CRD, kubectl, ok, serve } from './serve';
import type { Served } from './serve';

let s: Served;
before(async () => {
  s = await serve();
  await ok(s.kubeconfig, ['apply', '-f', '-'], WIDGET_CRD);
});
after(async () => {
  await s?.stop();
});

const widget = (name: string, size: number) =>
  `apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: ${name}}\nspec: {size: ${size}}\n`;

test('kubectl sees the default namespaces and the server version', async () => {
  const out = await ok(s.kubeconfig, ['get', 'namespaces', '-o', 'name']);
  for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease'])
    assert.match(out, new RegExp(`namespace/${ns}`));
  const v = JSON.parse(await ok(s.kubeconfig, ['version', '-o', 'json'])) as {
    serverVersion: { major: string };
  };
  assert.equal(v.serverVersion.major, '1');
});

test('kubectl apply of a CRD makes its kind servable, with printer columns and short names', async () => {
  await ok(s.kubeconfig, ['apply', '-f', '-'], widget('cols', 3));
  const out = await ok(s.kubeconfig, ['get', 'wd']);
  assert.match(out.split('\n')[0], /^NAME\s+SIZE\s+PHASE/);
  assert.match(out, /cols\s+3/);
  const obj = JSON.parse(await ok(s.kubeconfig, ['get', 'widget', 'cols', '-o', 'json'])) as {
    spec: { color: string };
    metadata: { generation: number };
  };
  assert.equal(obj.spec.color, 'red');
  assert.equal(obj.metadata.generation, 1);
});

test('kubectl apply of an invalid object shows the apiserver 422 message', async () => {
  const r = await kubectl(s.kubeconfig, ['apply', '-f', '-'], widget('neg', -1));
  assert.notEqual(r.code, 0);
  assert.match(
    r.stderr,
    /spec.size: Invalid value: -1: spec.size in body should be greater than or equal to 0/,
  );
});

test('kubectl create commands that send protobuf bodies work (configmap, secret, namespace, deployment, run)', async () => {
  await ok(s.kubeconfig, ['create', 'configmap', 'pb-cm', '--from-literal=a=b']);
  await ok(s.kubeconfig, ['create', 'secret', 'generic', 'pb-secret', '--from-literal=p=q']);
  await ok(s.kubeconfig, ['create', 'namespace', 'pb-ns']);
  await ok(s.kubeconfig, [
    'run',
    'pb-pod',
    '--image=busybox:1.36',
    '--env=A=1',
    '--',
    'sleep',
    '10',
  ]);
  assert.equal(await ok(s.kubeconfig, ['get', 'cm', 'pb-cm', '-o', 'jsonpath={.data.a}']), 'b');
  assert.equal(
    await ok(s.kubeconfig, ['get', 'secret', 'pb-secret', '-o', 'jsonpath={.data.p}']),
    Buffer.from('q').toString('base64'),
  );
  assert.equal(
    await ok(s.kubeconfig, [
      'get',
      'pod',
      'pb-pod',
      '-o',
      'jsonpath={.spec.containers[0].args[1]}',
    ]),
    '10',
  );
  const dup = await kubectl(s.kubeconfig, ['create', 'configmap', 'pb-cm']);
  assert.match(dup.stderr, /failed to create configmap: configmaps "pb-cm" already exists/);
});

test('kubectl apply validates strictly on the server: unknown fields are refused', async () => {
  const r = await kubectl(
    s.kubeconfig,
    ['apply', '-f', '-'],
    'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: strict}\nspec: {size: 1, bogus: true}\n',
  );
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /strict decoding error: unknown field "spec.bogus"/);
  await ok(
    s.kubeconfig,
    ['apply', '--validate=false', '-f', '-'],
    'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: strict}\nspec: {size: 1, bogus: true}\n',
  );
  assert.equal(
    await ok(s.kubeconfig, ['get', 'widget', 'strict', '-o', 'jsonpath={.spec}']),
    '{"color":"red","size":1}',
  );
});

test('kubectl create of an existing object is AlreadyExists; get of a missing one NotFound', async () => {
  await ok(
    s.kubeconfig,
    ['apply', '-f', '-'],
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dup}\n',
  );
  const r = await kubectl(
    s.kubeconfig,
    ['create', '-f', '-'],
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dup}\n',
  );
  assert.match(
    r.stderr,
    /Error from server \(AlreadyExists\): error when creating "STDIN": configmaps "dup" already exists/,
  );
  const g = await kubectl(s.kubeconfig, ['get', 'configmap', 'nope']);
  assert.match(g.stderr, /Error from server \(NotFound\): configmaps "nope" not found/);
});

test('kubectl patch --subresource=status changes status only and leaves generation', async () => {
  await ok(s.kubeconfig, ['apply', '-f', '-'], widget('st', 1));
  await ok(s.kubeconfig, [
    'patch',
    'widget',
    'st',
    '--subresource=status',
    '--type=merge',
    '-p',
    '{"status":{"phase":"Ready"},"spec":{"size":9}}',
  ]);
  const obj = JSON.parse(await ok(s.kubeconfig, ['get', 'widget', 'st', '-o', 'json'])) as {
    spec: { size: number };
    status: { phase: string };
    metadata: { generation: number };
  };
  assert.equal(obj.status.phase, 'Ready');
  assert.equal(obj.spec.size, 1);
  assert.equal(obj.metadata.generation, 1);
});

test('kubectl get -w streams changes as they happen', async () => {
  await ok(s.kubeconfig, ['apply', '-f', '-'], widget('watched', 1));
  const w = spawn('kubectl', [
    '--kubeconfig',
    s.kubeconfig,
    'get',
    'widget',
    'watched',
    '-w',
    '-o',
    'custom-columns=NAME:.metadata.name,SIZE:.spec.size',
    '--no-headers',
  ]);
  let out = '';
  w.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const waitFor = async (re: RegExp) => {
    for (let i = 0; i < 200 && !re.test(out); i++) await new Promise((r) => setTimeout(r, 25));
    assert.match(out, re);
  };
  await waitFor(/watched\s+1/);
  await ok(s.kubeconfig, [
    'patch',
    'widget',
    'watched',
    '--type=merge',
    '-p',
    '{"spec":{"size":7}}',
  ]);
  await waitFor(/watched\s+7/);
  w.kill();
});

test('kubectl delete and wait --for=delete', async () => {
  await ok(s.kubeconfig, ['apply', '-f', '-'], widget('gone', 1));
  await ok(s.kubeconfig, ['delete', 'widget', 'gone']);
  await ok(s.kubeconfig, ['wait', '--for=delete', 'widget/gone', '--timeout=10s']);
});

test('kubectl apply --server-side reports conflicts with other managers and --force-conflicts takes over', async () => {
  await ok(s.kubeconfig, ['apply', '--server-side', '-f', '-'], widget('ssa', 1));
  await ok(s.kubeconfig, ['patch', 'widget', 'ssa', '--type=merge', '-p', '{"spec":{"size":2}}']);
  const r = await kubectl(s.kubeconfig, ['apply', '--server-side', '-f', '-'], widget('ssa', 3));
  assert.notEqual(r.code, 0);
  assert.match(
    r.stderr,
    /Apply failed with 1 conflict: conflict with "kubectl-patch" using example.com\/v1: .spec.size/,
  );
  await ok(
    s.kubeconfig,
    ['apply', '--server-side', '--force-conflicts', '-f', '-'],
    widget('ssa', 3),
  );
  assert.equal(
    await ok(s.kubeconfig, ['get', 'widget', 'ssa', '-o', 'jsonpath={.spec.size}']),
    '3',
  );
});

test('kubectl works with built-in kinds: deployments get their replicasets and pods', async () => {
  await ok(s.kubeconfig, ['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2']);

  await ok(s.kubeconfig, ['rollout', 'status', 'deployment/web', '--timeout=20s']);
  const pods = await ok(s.kubeconfig, ['get', 'pods', '-l', 'app=web', '--no-headers']);
  assert.equal(pods.trim().split('\n').length, 2);
  assert.match(pods, /1\/1\s+Running/);
  await ok(s.kubeconfig, ['scale', 'deployment/web', '--replicas=3']);
  await ok(s.kubeconfig, ['rollout', 'status', 'deployment/web', '--timeout=20s']);
  assert.equal(
    (
      await ok(s.kubeconfig, ['get', 'deploy', 'web', '-o', 'jsonpath={.status.readyReplicas}'])
    ).trim(),
    '3',
  );
});

test('requests without the bearer token are 401 Unauthorized', async () => {
  const kc = YAML.parse(readFileSync(s.kubeconfig, 'utf8')) as {
    clusters: Array<{ cluster: { 'certificate-authority-data': string } }>;
  };
  const ca = Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64').toString();
  const code = await new Promise<number>((res, rej) => {
    const req = request(`${s.url}/api/v1/namespaces`, { ca }, (r) => {
      r.resume();
      res(r.statusCode ?? 0);
    });
    req.on('error', rej);
    req.end();
  });
  assert.equal(code, 401);
});

test('a body over 3 MiB is refused with 413', async () => {
  const big = JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'big' },
    data: { x: 'a'.repeat(3 * 1024 * 1024 + 10) },
  });
  const r = await kubectl(s.kubeconfig, ['create', '-f', '-'], big);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /Request entity too large|413/);
});
