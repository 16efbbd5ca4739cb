/**
 * Hostile input over HTTP: each test sends exactly the request that once corrupted, leaked or
 * lost something, and checks the served cluster refuses it the way kube-apiserver does and keeps
 * serving everything else.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ok, rawClient, serve } from './serve';
import type { RawResponse, Served } from './serve';

let s: Served;
let call: ReturnType<typeof rawClient>;
let stateDir: string;
before(async () => {
  s = await serve(['--no-controllers']);
  call = rawClient(s);
  stateDir = s.dir;
});
after(async () => {
  await s?.stop();
});

const CMS = '/api/v1/namespaces/default/configmaps';

function cm(name: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, ...extra });
}

function assertStatus(
  r: RawResponse,
  code: number,
  reason: string | undefined,
  message: string | RegExp,
) {
  assert.equal(r.code, code, r.text);
  assert.equal(r.json.kind, 'Status');
  assert.equal(r.json.reason, reason);
  if (typeof message === 'string') assert.equal(r.json.message, message);
  else assert.match(String(r.json.message), message);
}

async function names(path: string): Promise<string[]> {
  const r = await call('GET', path);
  assert.equal(r.code, 200, r.text);
  return (r.json.items as Array<{ metadata: { name: string } }>).map((o) => o.metadata.name);
}

test('a ConfigMap nested 6,000 levels deep is a 400 and poisons nothing', async () => {
  // 12 KB: the request that used to be stored, after which every ConfigMap read answered 500.
  const deep = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":{"x":${'['.repeat(6000)}${']'.repeat(6000)}}}`;
  const r = await call('POST', CMS, deep);
  // create.go's transformDecodeError: the kind could not be found, so the body is summarized.
  assertStatus(
    r,
    400,
    'BadRequest',
    'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: exceeded max depth ({"apiVersion":"v1","kind":"Con ...)',
  );
  // The same depth in an unknown field, and as a merge patch.
  const hidden = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"x":${'{"a":'.repeat(6000)}1${'}'.repeat(6000)}}`;
  assertStatus(await call('POST', CMS, hidden), 400, 'BadRequest', /exceeded max depth/);
  assert.equal((await call('POST', CMS, cm('after-deep'))).code, 201);
  const patch = `{"data":{"y":"1"},"z":${'{"a":'.repeat(6000)}1${'}'.repeat(6000)}}`;
  const p = await call('PATCH', `${CMS}/after-deep`, patch, 'application/merge-patch+json');
  assertStatus(p, 400, 'BadRequest', 'error decoding patch: exceeded max depth');
  // Reads, the cluster-wide list and deletes still work.
  assert.equal((await call('GET', `${CMS}/deep`)).code, 404);
  assert.ok((await names(CMS)).includes('after-deep'));
  assert.ok((await names('/api/v1/configmaps')).includes('after-deep'));
  assert.equal((await call('GET', `${CMS}/after-deep`)).json.data, undefined);
  assert.equal((await call('DELETE', `${CMS}/after-deep`)).code, 200);
});

test('YAML nested beyond what the parser can hold is the same 400', async () => {
  const yaml = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deepyaml}\nx: ${'['.repeat(3000)}${']'.repeat(3000)}\n`;
  const r = await call('POST', CMS, yaml, 'application/yaml');
  // Summarized in hex: a body not starting with `{`.
  assertStatus(
    r,
    400,
    'BadRequest',
    `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: exceeded max depth (${Buffer.from(yaml.slice(0, 30)).toString('hex')} ...)`,
  );
});

test('dot segments never reach another object', async () => {
  await ok(s.kubeconfig, ['create', 'namespace', 'victim']);
  await ok(s.kubeconfig, ['-n', 'victim', 'create', 'configmap', 'c1']);
  await ok(s.kubeconfig, ['-n', 'other', 'create', 'configmap', 'c2']).catch(async () => {
    await ok(s.kubeconfig, ['create', 'namespace', 'other']);
    await ok(s.kubeconfig, ['-n', 'other', 'create', 'configmap', 'c2']);
  });
  const del = await call('DELETE', '/api/v1/namespaces/victim/configmaps/%2e%2e');
  assertStatus(del, 400, 'BadRequest', 'Name parameter invalid: "..": may not be \'..\'');
  assert.equal((await call('GET', '/api/v1/namespaces/victim')).code, 200);
  const get = await call('GET', '/api/v1/namespaces/victim/configmaps/%2e%2e');
  assertStatus(get, 400, 'BadRequest', 'Name parameter invalid: "..": may not be \'..\'');
  const dot = await call('GET', '/api/v1/namespaces/victim/configmaps/%2E');
  assertStatus(dot, 400, 'BadRequest', 'Name parameter invalid: ".": may not be \'.\'');
  const literal = await call('DELETE', '/api/v1/namespaces/victim/configmaps/..');
  assertStatus(literal, 400, 'BadRequest', 'Name parameter invalid: "..": may not be \'..\'');
  // A namespace named ".." is just a namespace that does not exist: nothing is listed from others.
  assert.deepEqual(await names('/api/v1/namespaces/%2e%2e/configmaps'), []);
  assert.equal((await call('GET', '/api/v1/namespaces/victim/%2e%2e/other/configmaps')).code, 404);
  assert.equal((await call('GET', '/api/v1/namespaces/%2e%2e/configmaps/c2')).code, 404);
  // An encoded slash separates segments as it does in Go's URL.Path: no object is named "a/b".
  assert.equal((await call('GET', '/api/v1/namespaces/victim/configmaps/a%2Fb')).code, 404);
  const pct = await call('GET', '/api/v1/namespaces/victim/configmaps/a%25b');
  assertStatus(pct, 400, 'BadRequest', 'Name parameter invalid: "a%b": may not contain \'%\'');
  // A body naming another namespace than its URL is refused, not moved.
  const moved = await call(
    'PUT',
    '/api/v1/namespaces/other/configmaps/c2',
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c2', namespace: 'victim' },
      data: { a: 'b' },
    }),
  );
  assertStatus(
    moved,
    400,
    'BadRequest',
    'the namespace of the provided object does not match the namespace sent on the request',
  );
  assert.deepEqual(await names('/api/v1/namespaces/victim/configmaps'), ['c1']);
  assert.deepEqual(await names('/api/v1/namespaces/other/configmaps'), ['c2']);
});

test('a malformed escape or integer parameter is a 400, not a 500', async () => {
  const r = await call('GET', '/api/v1/namespaces/default/configmaps/%zz');
  assertStatus(r, 400, 'BadRequest', 'invalid URL escape "%zz"');
  assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/%e2%28')).code, 400);
  assertStatus(
    await call('GET', `${CMS}?limit=abc`),
    400,
    'BadRequest',
    'strconv.ParseInt: parsing "abc": invalid syntax',
  );
  assert.equal((await call('GET', '/version')).code, 200);
});

test('ill-typed objects are refused with the decoder messages and never stored', async () => {
  const cannot = (kind: string, err: string) =>
    `${kind} in version "v1" cannot be handled as a ${kind}: json: cannot unmarshal ${err}`;
  const deploy = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd' },
    spec: {
      replicas: 'abc',
      selector: { matchLabels: { app: 'd' } },
      template: {
        metadata: { labels: { app: 'd' } },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      },
    },
  };
  const cmMeta = (metadata: Record<string, unknown>) =>
    JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata });
  const refused: Array<[string, string, string]> = [
    [
      CMS,
      cmMeta({ name: 42 }),
      cannot('ConfigMap', 'number into Go struct field ObjectMeta.metadata.name of type string'),
    ],
    [
      CMS,
      cmMeta({ name: 'l', labels: ['a'] }),
      cannot(
        'ConfigMap',
        'array into Go struct field ObjectMeta.metadata.labels of type map[string]string',
      ),
    ],
    [
      CMS,
      cm('d1', { data: { a: ['x'] } }),
      cannot('ConfigMap', 'array into Go struct field ConfigMap.data of type string'),
    ],
    [
      CMS,
      cm('d2', { data: { a: 1 } }),
      cannot('ConfigMap', 'number into Go struct field ConfigMap.data of type string'),
    ],
    [
      CMS,
      cmMeta({ name: 'f', finalizers: 'x' }),
      cannot(
        'ConfigMap',
        'string into Go struct field ObjectMeta.metadata.finalizers of type []string',
      ),
    ],
    [
      '/apis/apps/v1/namespaces/default/deployments',
      JSON.stringify(deploy),
      cannot(
        'Deployment',
        'string into Go struct field DeploymentSpec.spec.replicas of type int32',
      ),
    ],
  ];
  for (const [path, body, message] of refused)
    assertStatus(await call('POST', path, body), 400, 'BadRequest', message);
  assert.equal((await call('GET', '/apis/apps/v1/namespaces/default/deployments/d')).code, 404);

  // Patches: the patch handler's 422 on "patch".
  assert.equal((await call('POST', CMS, cm('typed', { data: { a: 'x' } }))).code, 201);
  const mp = await call(
    'PATCH',
    `${CMS}/typed`,
    '{"metadata":{"labels":["a"]}}',
    'application/merge-patch+json',
  );
  assertStatus(
    mp,
    422,
    'Invalid',
    /^ "" is invalid: patch: Invalid value: ".*": json: cannot unmarshal array into Go struct field ObjectMeta\.metadata\.labels of type map\[string\]string$/,
  );
  const jp = await call(
    'PATCH',
    `${CMS}/typed`,
    '[{"op":"add","path":"/data/b","value":{"x":1}}]',
    'application/json-patch+json',
  );
  assertStatus(jp, 422, 'Invalid', /object into Go struct field ConfigMap\.data of type string$/);
  // A strategic-merge delete of a key that is not there stores nothing in its place.
  const smp = await call(
    'PATCH',
    `${CMS}/typed`,
    '{"bogus":{"$patch":"delete"},"data":{"b":"y"}}',
    'application/strategic-merge-patch+json',
  );
  assert.equal(smp.code, 200, smp.text);
  assert.equal((smp.json as { bogus?: unknown }).bogus, undefined);
  assert.deepEqual(smp.json.data, { a: 'x', b: 'y' });

  // Apply: the body must name the URL's kind, version and name.
  const apply = (body: string, name = 'typed') =>
    call('PATCH', `${CMS}/${name}?fieldManager=t`, body, 'application/apply-patch+yaml');
  assertStatus(
    await apply('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other}\ndata: {a: x}\n'),
    400,
    'BadRequest',
    'the name of the object (other) does not match the name on the URL (typed)',
  );
  assertStatus(
    await apply('apiVersion: v1\nkind: Secret\nmetadata: {name: typed}\n'),
    400,
    'BadRequest',
    'the kind of the object (Secret) does not match the kind of the resource on the URL (ConfigMap)',
  );
  assertStatus(
    await apply(
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: newone}\ndata: {a: [1]}\n',
      'newone',
    ),
    500,
    undefined,
    // As a kube-apiserver 1.36 answers it: no Status error, so a 500 with no reason, the object
    // named as the applied configuration names itself, the value in structured-merge-diff's %#v.
    'failed to create typed patch object (/newone; /v1, Kind=ConfigMap): .data.a: expected string, got &value.valueUnstructured{Value:[]interface {}{1}}',
  );
  assert.equal((await call('GET', `${CMS}/newone`)).code, 404);

  // Everything listed decodes into the typed ConfigMap: data values are all strings.
  const list = await call('GET', CMS);
  for (const o of list.json.items as Array<{ data?: Record<string, unknown> }>)
    for (const v of Object.values(o.data ?? {})) assert.equal(typeof v, 'string');
});

test('non-object, null and wrong-type bodies are 400s; undeclared fields are dropped with a warning', async () => {
  assertStatus(
    await call('POST', CMS, 'null'),
    400,
    'BadRequest',
    "Object 'Kind' is missing in 'null'",
  );
  assertStatus(
    await call('POST', CMS, '[1]'),
    400,
    'BadRequest',
    /cannot unmarshal array into Go value/,
  );
  assertStatus(
    await call('POST', CMS, '"x"'),
    400,
    'BadRequest',
    /cannot unmarshal string into Go value/,
  );
  assertStatus(await call('POST', CMS, ''), 400, 'BadRequest', /json parse error/);
  assertStatus(
    await call('POST', CMS, cm('m', { metadata: 'x' }).replace('"metadata":{"name":"m"},', '')),
    400,
    'BadRequest',
    /cannot unmarshal string into Go struct field ConfigMap\.metadata of type v1\.ObjectMeta/,
  );
  // A content type the API does not speak is a 415 (none at all means JSON).
  assertStatus(
    await call('POST', CMS, cm('plain'), 'text/plain'),
    415,
    'UnsupportedMediaType',
    /^the body of the request was in an unknown format - accepted media types include: application\/json, application\/yaml, application\/vnd\.kubernetes\.protobuf/,
  );
  assert.equal(
    (await call('POST', CMS, cm('pb'), 'application/vnd.kubernetes.protobuf')).code,
    400,
  );
  // A name with a slash is not a valid object name.
  assertStatus(
    await call('POST', CMS, cm('a/b')),
    422,
    'Invalid',
    /^ConfigMap "a\/b" is invalid: metadata\.name: Invalid value: "a\/b"/,
  );
  // Many keys are fine; a key the type does not declare is dropped.
  const data: Record<string, string> = {};
  for (let i = 0; i < 20_000; i++) data[`k${i}`] = 'v';
  const many = await call('POST', CMS, cm('many', { data, bogus: { a: 1 } }));
  assert.equal(many.code, 201, many.text);
  assert.equal((many.json as { bogus?: unknown }).bogus, undefined);
  assert.equal(Object.keys(many.json.data as object).length, 20_000);
});

test('with --state, a refused write leaves later writes saved', async () => {
  const state = join(stateDir, 'state.json');
  const a = await serve(['--no-controllers', '--state', state]);
  try {
    const c = rawClient(a);
    const deep = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":{"x":${'['.repeat(6000)}${']'.repeat(6000)}}}`;
    assert.equal((await c('POST', CMS, deep)).code, 400);
    assert.equal((await c('POST', CMS, cm('kept'))).code, 201);
  } finally {
    await stopKeepingDir(a);
  }
  const b = await serve(['--no-controllers', '--state', state]);
  try {
    assert.equal((await rawClient(b)('GET', `${CMS}/kept`)).code, 200);
  } finally {
    await b.stop();
  }
});

/** Stops a served cluster without removing its folder (the state file outlives it). */
async function stopKeepingDir(x: Served): Promise<void> {
  if (x.child.exitCode !== null) return;
  const exited = new Promise((r) => x.child.once('exit', r));
  x.child.kill('SIGTERM');
  await exited;
}
