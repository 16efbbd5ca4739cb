import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  MAX_DEPTH,
  decodeDeleteOptions,
  decodeObject,
  decodePatch,
  int64Param,
  undecodable,
} from '../../../src/cluster/endpoints/decode';
import { widgetCrd } from '../helpers';

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

test('nesting is measured without recursion, at any depth', () => {
  assert.equal(undecodable(JSON.parse(nested(MAX_DEPTH))), undefined);
  assert.equal(undecodable(JSON.parse(nested(MAX_DEPTH + 1))), 'exceeded max depth');
  assert.equal(undecodable(JSON.parse(nested(200_000))), 'exceeded max depth');
  assert.equal(undecodable({ a: 'x', b: [1, { c: null }] }), undefined);
});

test('numbers JSON cannot carry are refused rather than turned into null', () => {
  assert.equal(
    undecodable(JSON.parse('{"a":[1e400]}')),
    'json: cannot unmarshal number into Go value of type float64',
  );
  assert.equal(
    undecodable({ a: NaN }),
    'json: cannot unmarshal number into Go value of type float64',
  );
});

test('a body nested too deep is the decoder 400, in JSON and in YAML', () => {
  const json = `{"kind":"ConfigMap","x":${nested(6000)}}`;
  for (const [body, ct] of [
    [json, 'application/json'],
    [`kind: ConfigMap\nx: ${nested(3000)}\n`, 'application/yaml'],
  ]) {
    assert.throws(
      () => decodeObject(Buffer.from(body), ct),
      (e: { code: number; message: string }) =>
        e.code === 400 &&
        e.message === "couldn't get version/kind; json parse error: exceeded max depth",
    );
  }
  assert.throws(() => decodePatch(Buffer.from(`{"a":${nested(6000)}}`), 'merge'), {
    message: 'error decoding patch: exceeded max depth',
  });
});

test('YAML aliases cannot expand without bound', () => {
  const bomb = ['a: &a [x,x,x,x,x,x,x,x,x]']
    .concat(
      Array.from(
        { length: 8 },
        (_, i) =>
          `${'bcdefghi'[i]}: &${'bcdefghi'[i]} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(',')}]`,
      ),
    )
    .join('\n');
  assert.throws(
    () => decodeObject(Buffer.from(`kind: ConfigMap\n${bomb}\n`), 'application/yaml'),
    (e: { code: number; message: string }) =>
      e.code === 400 && /Excessive alias count/.test(e.message),
  );
});

test('bodies that are not objects, and media types the API does not speak', () => {
  assert.throws(() => decodeObject(Buffer.from('null'), 'application/json'), {
    message: "Object 'Kind' is missing in 'null'",
  });
  assert.throws(
    () => decodeObject(Buffer.from('[1]'), undefined),
    (e: { message: string }) =>
      e.message.startsWith(
        "couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct",
      ),
  );
  assert.throws(() => decodeObject(Buffer.from('{}'), 'text/plain'), { code: 415 });
  assert.throws(() => decodeObject(Buffer.from('{}'), 'application/cbor'), { code: 415 });
  // No content type means JSON; parameters are ignored.
  assert.deepEqual(decodeObject(Buffer.from('{"kind":"X"}'), undefined), {
    kind: 'X',
    metadata: {},
  });
  assert.equal(
    decodeObject(Buffer.from('{"kind":"X"}'), 'application/json; charset=utf-8').kind,
    'X',
  );
});

test('a DeleteOptions body that is not an object is a 400', () => {
  const q = new URLSearchParams();
  assert.throws(() => decodeDeleteOptions(q, Buffer.from('[1]')), { code: 400 });
  assert.deepEqual(decodeDeleteOptions(q, Buffer.from('null')), {});
  assert.deepEqual(decodeDeleteOptions(q, Buffer.from('{"propagationPolicy":"Orphan"}')), {
    propagationPolicy: 'Orphan',
  });
});

test('integer query parameters are parsed as the parameter codec does', () => {
  const q = new URLSearchParams('limit=500&timeoutSeconds=abc&x=1.5');
  assert.equal(int64Param(q, 'limit'), 500);
  assert.equal(int64Param(q, 'missing'), undefined);
  assert.throws(() => int64Param(q, 'timeoutSeconds'), {
    code: 400,
    message: 'strconv.ParseInt: parsing "abc": invalid syntax',
  });
  assert.throws(() => int64Param(q, 'x'), { code: 400 });
});

test('YAML bodies are YAML 1.1 as go-yaml reads them: y/yes/on are booleans, timestamps and 12:30 strings', () => {
  const yaml = (text: string) => decodeObject(Buffer.from(text), 'application/yaml');
  const o = yaml(
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  a: y\n  b: on\n  c: off\n  when: 2001-12-14\n  clock: 12:30\n  oct: 0777\n',
  ) as unknown as { data: Record<string, unknown> };
  assert.deepEqual(o.data, {
    a: true,
    b: true,
    c: false,
    when: '2001-12-14',
    clock: '12:30',
    oct: 511,
  });
});

test("a YAML 1.1 boolean where a string belongs is the typed decoder's 400", async () => {
  const { served } = await import('../http');
  const s = await served();
  try {
    const a = await s.call(
      'POST',
      '/api/v1/namespaces/default/configmaps',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  k: on\n',
      { 'content-type': 'application/yaml' },
    );
    assert.equal(a.status, 400);
    assert.equal(
      (JSON.parse(a.body) as { message: string }).message,
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal bool into Go struct field ConfigMap.data of type string',
    );
  } finally {
    await s.close();
  }
});

test('a body of another kind is worded as the decoder words it: unknown conversion, unregistered kind, or an invalid custom resource', async () => {
  const { served } = await import('../http');
  const s = await served();
  const post = async (path: string, body: object) => {
    const r = await s.call('POST', path, body);
    return { ...(JSON.parse(r.body) as { message: string; reason: string }), status: r.status };
  };
  try {
    const cms = '/api/v1/namespaces/default/configmaps';
    const secret = await post(cms, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a' } });
    assert.deepEqual(
      [secret.status, secret.message],
      [
        400,
        'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
      ],
    );
    const wrongGroup = await post(cms, {
      apiVersion: 'apps/v1',
      kind: 'ConfigMap',
      metadata: { name: 'a' },
    });
    assert.deepEqual(
      [wrongGroup.status, wrongGroup.message],
      [
        400,
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "apps/v1" in scheme "pkg/runtime/scheme.go:111"',
      ],
    );
    const deploy = await post('/apis/apps/v1/namespaces/default/statefulsets', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'a' },
    });
    assert.equal(
      deploy.message,
      'Deployment in version "v1" cannot be handled as a StatefulSet: converting (v1.Deployment) to (apps.StatefulSet): unknown conversion',
    );
    // A custom resource decodes as unstructured; its validator refuses the kind, in that kind.
    s.cluster.create(widgetCrd());
    const gadget = await post('/apis/example.com/v1/namespaces/default/widgets', {
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'w' },
    });
    assert.deepEqual(
      [gadget.status, gadget.reason, gadget.message],
      [
        422,
        'Invalid',
        'Gadget.example.com "w" is invalid: kind: Invalid value: "Gadget": must be Widget',
      ],
    );
  } finally {
    await s.close();
  }
});

test('a field given twice is a strict decoding error under Strict and a warning under Warn', async () => {
  const { served } = await import('../http');
  const s = await served();
  try {
    const body =
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d"},"data":{"k":"1","k":"2"}}';
    const cms = '/api/v1/namespaces/default/configmaps';
    const strict = await s.call('POST', `${cms}?fieldValidation=Strict`, body);
    assert.equal(strict.status, 400);
    assert.equal(
      (JSON.parse(strict.body) as { message: string }).message,
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data.k"',
    );
    const warned = await s.call('POST', cms, body);
    assert.equal(warned.status, 201);
    assert.equal(warned.headers.warning, '299 - "duplicate field \\"data.k\\""');
    assert.deepEqual((JSON.parse(warned.body) as { data: object }).data, { k: '2' });
  } finally {
    await s.close();
  }
});

test('a body whose kind cannot be found is unrecognized, in Go’s JSON words, with the body summarized', async () => {
  const { served } = await import('../http');
  const s = await served();
  try {
    const post = async (body: string) =>
      (
        JSON.parse((await s.call('POST', '/api/v1/namespaces/default/configmaps', body)).body) as {
          message: string;
        }
      ).message;
    assert.equal(
      await post('{"metadata": {"name": "a"'),
      'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"metadata": {"name": "a")',
    );
    assert.equal(
      await post('[1,2]'),
      'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (5b312c325d)',
    );
    assert.match(
      await post('{"a" 1}'),
      /json parse error: invalid character '1' after object key \(/,
    );
  } finally {
    await s.close();
  }
});

test('a quantity that does not parse fails the decode, as Quantity.UnmarshalJSON fails it', async () => {
  const { served } = await import('../http');
  const s = await served();
  try {
    const r = await s.call('POST', '/api/v1/namespaces/default/resourcequotas', {
      metadata: { name: 'q' },
      spec: { hard: { pods: 'lots' } },
    });
    assert.equal(r.status, 400);
    assert.equal(
      (JSON.parse(r.body) as { message: string }).message,
      'ResourceQuota in version "v1" cannot be handled as a ResourceQuota: quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'',
    );
    const fine = await s.call('POST', '/api/v1/namespaces/default/resourcequotas', {
      metadata: { name: 'q' },
      spec: { hard: { pods: ' 10 ', 'requests.memory': '1.5Gi' } },
    });
    assert.equal(fine.status, 201, fine.body);
  } finally {
    await s.close();
  }
});
