import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { WIDGET_CRD, ok, rawClient, serve } from './serve';
import type { Served } from './serve';

let s: Served;
let call: ReturnType<typeof rawClient>;
before(async () => {
  s = await serve(['--no-controllers']);
  await ok(s.kubeconfig, ['apply', '-f', '-'], WIDGET_CRD);
  call = rawClient(s);
});
after(async () => {
  await s?.stop();
});

test('malformed JSON is a 400 BadRequest Status, and the server keeps serving', async () => {
  const r = await call('POST', '/api/v1/namespaces/default/configmaps', '{"metadata": {');
  assert.equal(r.code, 400);
  assert.equal(r.json.kind, 'Status');
  assert.equal(r.json.reason, 'BadRequest');
  assert.equal((await call('GET', '/version')).code, 200);
});

test('unknown resources are 404 with the apiserver message, unknown groups its plain page', async () => {
  const r = await call('GET', '/apis/apps/v1/namespaces/default/things');
  assert.equal(r.code, 404);
  assert.equal(r.json.message, 'the server could not find the requested resource');
  const group = await call('GET', '/apis/nope.example.com/v1/things');
  assert.equal(group.code, 404);
  assert.equal(group.text, '404 page not found\n');
});

test('a bad label selector is a 400', async () => {
  const r = await call(
    'GET',
    `/api/v1/namespaces/default/configmaps?labelSelector=${encodeURIComponent('a in b')}`,
  );
  assert.equal(r.code, 400);
  assert.match(String(r.json.message), /unable to parse requirement/);
});

test('an invalid name is a 422 Invalid with causes', async () => {
  const r = await call(
    'POST',
    '/api/v1/namespaces/default/configmaps',
    JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Not_Valid' } }),
  );
  assert.equal(r.code, 422);
  assert.equal(r.json.reason, 'Invalid');
  assert.equal(
    (r.json.details as { causes: Array<{ field: string }> }).causes[0].field,
    'metadata.name',
  );
});

test('an unsupported patch content type is 415', async () => {
  const r = await call('PATCH', '/api/v1/namespaces/default/configmaps/x', '{}', 'text/plain');
  assert.equal(r.code, 415);
});

test('strategic merge patch of a custom resource is 415, as on a real apiserver', async () => {
  await call(
    'POST',
    '/apis/example.com/v1/namespaces/default/widgets',
    JSON.stringify({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'smp' },
      spec: { size: 1 },
    }),
  );
  const r = await call(
    'PATCH',
    '/apis/example.com/v1/namespaces/default/widgets/smp',
    '{"spec":{"size":2}}',
    'application/strategic-merge-patch+json',
  );
  assert.equal(r.code, 415);
});

test('discovery lists the CRD group and its resources', async () => {
  const groups = await call('GET', '/apis');
  assert.ok((groups.json.groups as Array<{ name: string }>).some((g) => g.name === 'example.com'));
  const res = await call('GET', '/apis/example.com/v1');
  const names = (res.json.resources as Array<{ name: string }>).map((r) => r.name);
  assert.deepEqual(names.sort(), ['widgets', 'widgets/status']);
});

test('a watch streams with 200 and a watch with a malformed resourceVersion is a 400', async () => {
  const r = await call(
    'GET',
    '/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=1&timeoutSeconds=2',
  );
  // The window keeps 10,000 changes; rv 1 is still inside it on a fresh server, so the stream starts normally.
  assert.equal(r.code, 200);
  const bad = await call(
    'GET',
    '/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=abc',
  );
  assert.equal(bad.code, 400);
});

test('POST with generateName and dryRun=All answers a named object and stores nothing', async () => {
  const body = JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { generateName: 'dry-' },
  });
  const r = await call('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', body);
  assert.equal(r.code, 201);
  const name = (r.json.metadata as { name: string }).name;
  assert.match(name, /^dry-[a-z0-9]{5}$/);
  assert.equal((await call('GET', `/api/v1/namespaces/default/configmaps/${name}`)).code, 404);
});

test('DELETE on a collection deletes what the label selector selects', async () => {
  for (const n of ['dc-1', 'dc-2']) {
    await call(
      'POST',
      '/api/v1/namespaces/default/configmaps',
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: n, labels: { dc: 'yes' } },
      }),
    );
  }
  const r = await call('DELETE', '/api/v1/namespaces/default/configmaps?labelSelector=dc%3Dyes');
  assert.equal(r.code, 200);
  assert.equal((r.json.items as unknown[]).length, 2);
  const left = await call('GET', '/api/v1/namespaces/default/configmaps?labelSelector=dc%3Dyes');
  assert.deepEqual(left.json.items, []);
});

test('GET with a meta.k8s.io Table Accept header answers a Table', async () => {
  const r = await call('GET', '/api/v1/namespaces', undefined, undefined, {
    Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
  });
  assert.equal(r.json.kind, 'Table');
  assert.deepEqual(
    (r.json.columnDefinitions as Array<{ name: string }>).map((c) => c.name),
    ['Name', 'Status', 'Age'],
  );
});
