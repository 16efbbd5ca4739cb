import assert from 'node:assert/strict';
import { test } from 'node:test';
import { differences } from './compare';
import { Vocabulary, normalise } from './normalise';

function normaliseAll(values: unknown[], server = ''): unknown[] {
  const vocab = new Vocabulary(server);
  values.forEach((v) => vocab.collect(v));
  return values.map((v) => normalise(v, vocab));
}

test('resourceVersions are compared by their order, not their numbers', () => {
  const a = normaliseAll([
    { metadata: { resourceVersion: '900' } },
    { metadata: { resourceVersion: '1000' } },
  ]);
  const b = normaliseAll([
    { metadata: { resourceVersion: '7' } },
    { metadata: { resourceVersion: '12' } },
  ]);
  assert.deepEqual(a, b);
  const reversed = normaliseAll([
    { metadata: { resourceVersion: '12' } },
    { metadata: { resourceVersion: '7' } },
  ]);
  assert.notDeepEqual(a, reversed);
});

test("a list's resourceVersion is compared by how many objects' versions it is at or after", () => {
  const list = (rv: string, items: unknown[]) => ({ metadata: { resourceVersion: rv }, items });
  // The reference's store moved on (a lease renewal) between the create and the list.
  const reference = normaliseAll([
    { metadata: { resourceVersion: '100' } },
    list('104', [{ metadata: { resourceVersion: '100' } }]),
  ]);
  const fake = normaliseAll([
    { metadata: { resourceVersion: '5' } },
    list('5', [{ metadata: { resourceVersion: '5' } }]),
  ]);
  assert.deepEqual(reference, fake);
  assert.deepEqual((fake[1] as { metadata: unknown }).metadata, { resourceVersion: '<list-rv:1>' });
  // A list behind a write it should show is still told apart.
  const stale = normaliseAll([
    { metadata: { resourceVersion: '5' } },
    { metadata: { resourceVersion: '6' } },
    list('5', []),
  ]);
  const current = normaliseAll([
    { metadata: { resourceVersion: '5' } },
    { metadata: { resourceVersion: '6' } },
    list('6', []),
  ]);
  assert.notDeepEqual(stale, current);
  // A Table's metadata is its list's.
  const [table] = normaliseAll([{ metadata: { resourceVersion: '9' }, rows: [] }]);
  assert.deepEqual((table as { metadata: unknown }).metadata, { resourceVersion: '<list-rv:0>' });
});

test("a watch bookmark's resourceVersion is the store's revision, compared as a list's", () => {
  const events = (object: string, bookmark: string) => [
    { type: 'ADDED', object: { metadata: { resourceVersion: object } } },
    { type: 'BOOKMARK', object: { metadata: { resourceVersion: bookmark } } },
  ];
  // The reference's watch cache has moved past the object (leases); the fake's has not.
  assert.deepEqual(normaliseAll([events('100', '104')]), normaliseAll([events('5', '5')]));
  // A bookmark behind the object it announced is still told apart.
  assert.notDeepEqual(normaliseAll([events('100', '99')]), normaliseAll([events('5', '5')]));
});

test('uids, timestamps and generated names become tokens, in messages too', () => {
  const [a] = normaliseAll([
    {
      metadata: {
        name: 'gen-x7k2p',
        generateName: 'gen-',
        uid: '0b4c3f1e-1111-2222-3333-444455556666',
      },
      message: 'configmaps "gen-x7k2p" at 2026-01-02T03:04:05Z',
    },
  ]);
  assert.deepEqual(a, {
    metadata: { name: 'gen-<generated-1>', generateName: 'gen-', uid: '<uid>' },
    message: 'configmaps "gen-<generated-1>" at <time>',
  });
});

test('a name generated for a refused object is recognised by its prefix and alphabet', () => {
  const [, answer] = normaliseAll([
    { metadata: { generateName: 'Bad_' } },
    { details: { name: 'Bad_cdwxn' } },
  ]);
  assert.deepEqual(answer, { details: { name: 'Bad_<generated-1>' } });
});

test("allocated ports and IPs and each side's address are not compared, the rest is", () => {
  const [a] = normaliseAll(
    [
      {
        spec: {
          clusterIP: '10.0.0.7',
          clusterIPs: ['10.0.0.7'],
          ports: [{ nodePort: 31000, port: 80 }],
        },
        addr: '127.0.0.1:4443',
      },
    ],
    'https://127.0.0.1:4443',
  );
  assert.deepEqual(a, {
    spec: {
      clusterIP: '<allocated>',
      clusterIPs: ['<allocated>'],
      ports: [{ nodePort: '<allocated>', port: 80 }],
    },
    addr: '<server>',
  });
  const [none] = normaliseAll([{ spec: { clusterIP: 'None' } }]);
  assert.deepEqual(none, { spec: { clusterIP: 'None' } });
});

test('differences name each path with both values, absent ones said so', () => {
  assert.deepEqual(differences({ a: 1, b: [1, 2] }, { a: 1, b: [1], c: true }, 'body'), [
    { path: 'body.b[1]', reference: 2, fake: '<absent>' },
    { path: 'body.c', reference: '<absent>', fake: true },
  ]);
  assert.deepEqual(differences({ a: { b: 1 } }, { a: { b: 1 } }, 'body'), []);
});

test('an object answered as YAML is compared as data at its paths, and as text by style and key order', () => {
  const ref =
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: "1"\n  y: plain\n';
  assert.deepEqual(differences({ body: ref }, { body: ref }, 'step1'), []);
  assert.deepEqual(
    differences(
      { body: ref },
      { body: ref.replace('name: a', 'name: b').replace('x: "1"', "x: '1'") },
      'step1',
    ),
    [
      { path: 'step1.body.metadata.name', reference: 'a', fake: 'b' },
      { path: 'step1.body.data.x (YAML style)', reference: 'QUOTE_DOUBLE', fake: 'QUOTE_SINGLE' },
    ],
  );
  const reordered =
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  y: plain\n  x: "1"\n';
  assert.deepEqual(differences({ body: ref }, { body: reordered }, 'step1'), [
    { path: 'step1.body.data (key order)', reference: ['x', 'y'], fake: ['y', 'x'] },
  ]);
  // Text that is not an object as YAML is compared as text.
  assert.deepEqual(differences({ body: 'a: 1' }, { body: 'a: 2' }, 'step1'), [
    { path: 'step1.body', reference: 'a: 1', fake: 'a: 2' },
  ]);
});

test('a PEM bundle is certificate data however many blocks it holds', () => {
  const block = (b: string) => `-----BEGIN CERTIFICATE-----\n${b}\n-----END CERTIFICATE-----\n`;
  // kubectl's custom columns print a ConfigMap's data as text.
  const line = (pem: string) => ({ stdout: `kube-root-ca.crt   map[ca.crt:${pem}]\n` });
  const chain = normaliseAll([line(block('AAA') + block('BBB'))]);
  const single = normaliseAll([line(block('CCC'))]);
  assert.deepEqual(chain, single);
  assert.notDeepEqual(normaliseAll([line('text')]), single);
});

test("a precondition's and a record's resourceVersion in a conflict's message are versions", () => {
  const msg = (record: string) => ({
    message: `the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${record}). The object might have been modified`,
  });
  assert.deepEqual(normaliseAll([msg('881')]), normaliseAll([msg('975')]));
});

test("a Table's Age cells are compared as ages, not as the seconds that passed", () => {
  const table = (age: string) => ({
    kind: 'Table',
    columnDefinitions: [{ name: 'Name' }, { name: 'Age' }],
    rows: [{ cells: ['x', age] }],
  });
  assert.deepEqual(normaliseAll([table('0s')]), normaliseAll([table('1s')]));
  const named = (name: string) => ({ ...table('0s'), rows: [{ cells: [name, '0s'] }] });
  assert.notDeepEqual(normaliseAll([named('x')]), normaliseAll([named('y')]));
});

test("a 410's oldest version and a signed token are each cluster's own values", () => {
  const gone = (oldest: string) => ({ message: `too old resource version: 1 (${oldest})` });
  assert.deepEqual(normaliseAll([gone('2459')]), normaliseAll([gone('33')]));
  const secret = (token: string) => ({ data: { token, namespace: 'ZGVmYXVsdA==' } });
  assert.deepEqual(normaliseAll([secret('ZXlKaA')]), normaliseAll([secret('ZXlKb')]));
  assert.notDeepEqual(normaliseAll([secret('')]), normaliseAll([secret('ZXlKb')]));
});

test("a Service's allocated addresses in YAML text are tokens, its type and None are not", () => {
  const yaml = (ip: string, port: string) =>
    `spec:\n  clusterIP: ${ip}\n  clusterIPs:\n  - ${ip}\n  ports:\n  - nodePort: ${port}\n    port: 80\n  type: NodePort\n`;
  const [a] = normaliseAll([{ body: yaml('10.0.0.155', '31000') }]);
  const [b] = normaliseAll([{ body: yaml('10.96.0.21', '30123') }]);
  assert.deepEqual(a, b);
  assert.match(JSON.stringify(a), /clusterIP: <allocated>\\n {2}clusterIPs:\\n {2}- <allocated>/);
  const [headless] = normaliseAll([{ body: 'spec:\n  clusterIP: None\n' }]);
  assert.deepEqual(headless, { body: 'spec:\n  clusterIP: None\n' });
});

test('managedFields are compared in an order that does not depend on their times', () => {
  const entry = (manager: string, operation = 'Update') => ({ manager, operation, time: 't' });
  const [a] = normaliseAll([{ metadata: { managedFields: [entry('unknown'), entry('kcm')] } }]);
  const [b] = normaliseAll([{ metadata: { managedFields: [entry('kcm'), entry('unknown')] } }]);
  assert.deepEqual(a, b);
  // Apply before Update is not a matter of time: it stays.
  const [c] = normaliseAll([
    { metadata: { managedFields: [entry('z', 'Apply'), entry('a', 'Update')] } },
  ]);
  assert.equal(
    (c as { metadata: { managedFields: { manager: string }[] } }).metadata.managedFields[0].manager,
    'z',
  );
});
