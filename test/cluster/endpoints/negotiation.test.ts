import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ROUTE_PRODUCES,
  prefersProtobuf,
  routeAccepts,
} from '../../../src/cluster/endpoints/negotiation';
import { served } from '../http';

test('protobuf is chosen when the first acceptable clause, by quality, names it', () => {
  for (const accept of [
    'application/vnd.kubernetes.protobuf,application/json',
    'application/vnd.kubernetes.protobuf, */*',
    'application/json;q=0.9, application/vnd.kubernetes.protobuf',
    'APPLICATION/VND.KUBERNETES.PROTOBUF',
  ])
    assert.equal(prefersProtobuf(accept), true, accept);
});

test('JSON when it comes first, for a wildcard, or when protobuf is refused', () => {
  for (const accept of [
    undefined,
    '',
    '*/*',
    'application/*',
    'application/json, application/vnd.kubernetes.protobuf',
    'application/vnd.kubernetes.protobuf;q=0, application/json',
    'application/vnd.kubernetes.protobuf;q=0.5, application/json',
    'text/html, application/yaml, application/vnd.kubernetes.protobuf',
  ])
    assert.equal(prefersProtobuf(accept), false, String(accept));
});

test("go-restful's Accept matching: */* or a produced type without its parameters", () => {
  assert.equal(routeAccepts(undefined, ROUTE_PRODUCES), true);
  assert.equal(routeAccepts('application/xml, */*;q=0.1', ROUTE_PRODUCES), true);
  assert.equal(routeAccepts('application/json;as=Table;v=v1;g=meta.k8s.io', ROUTE_PRODUCES), true);
  assert.equal(routeAccepts('application/xml', ROUTE_PRODUCES), false);
  assert.equal(routeAccepts('text/*', ROUTE_PRODUCES), false);
  assert.equal(routeAccepts('application/*', ROUTE_PRODUCES), false);
});

test('an Accept no route produces is a 406 naming the route’s representations', async () => {
  const s = await served();
  try {
    s.cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
    const list = await s.get('/api/v1/namespaces/default/configmaps', {
      accept: 'application/xml',
    });
    assert.equal(list.status, 406);
    const st = JSON.parse(list.body) as Record<string, unknown>;
    assert.equal(
      st.message,
      '406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch',
    );
    assert.equal(st.reason, 'NotAcceptable');
    assert.deepEqual(st.details, {});
    const one = await s.get('/api/v1/namespaces/default/configmaps/c', { accept: 'text/*' });
    assert.equal(one.status, 406);
    assert.match(
      (JSON.parse(one.body) as { message: string }).message,
      /Available representations: application\/json, application\/yaml, application\/vnd\.kubernetes\.protobuf$/,
    );
  } finally {
    await s.close();
  }
});

test('application/yaml answers objects, lists and errors in YAML, as kube-apiserver 1.36.3 writes them', async () => {
  const s = await served();
  try {
    s.cluster.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm1', namespace: 'default' },
      data: { dot: '.', multi: 'a\nb', n: 'n', ts: '2024-01-02', yes: 'on' },
    });
    const one = await s.get('/api/v1/namespaces/default/configmaps/cm1', {
      accept: 'application/yaml',
    });
    assert.equal(one.status, 200);
    assert.equal(one.headers['content-type'], 'application/yaml');
    // The data as a real kube-apiserver 1.36.3 wrote it for the same ConfigMap.
    assert.ok(
      one.body.startsWith(
        'apiVersion: v1\ndata:\n  dot: .\n  multi: |-\n    a\n    b\n  "n": "n"\n  ts: "2024-01-02"\n  "yes": "on"\nkind: ConfigMap\nmetadata:\n  creationTimestamp: "',
      ),
      one.body,
    );
    const list = await s.get('/api/v1/namespaces/default/configmaps', {
      accept: 'application/yaml',
    });
    assert.match(list.body, /^apiVersion: v1\nitems:\n- data:\n {4}dot: \.\n/);
    const missing = await s.get('/api/v1/namespaces/default/configmaps/nope', {
      accept: 'application/yaml',
    });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers['content-type'], 'application/yaml');
    assert.equal(
      missing.body,
      'apiVersion: v1\ncode: 404\ndetails:\n  kind: configmaps\n  name: nope\nkind: Status\nmessage: configmaps "nope" not found\nmetadata: {}\nreason: NotFound\nstatus: Failure\n',
    );
  } finally {
    await s.close();
  }
});
