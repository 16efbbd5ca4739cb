import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDocument } from 'yaml';
import {
  fieldSteps,
  problemsOfStatus,
  rangeOfError,
  rangeOfField,
  statusOfError,
} from '../../../src/cluster/apimachinery/yamlfields';
import {
  newConflict,
  newInvalid,
  newNotFound,
  newUnknownStorageError,
  fieldInvalid,
  fieldRequired,
  OBJECT_MODIFIED,
} from '../../../src/cluster/apimachinery/errors';

const TEXT = `apiVersion: apps.example.com/v1
kind: WebApp
metadata:
  name: shop
  namespace: default
  resourceVersion: "42"
  labels:
    app.kubernetes.io/name: shop
spec:
  image: nginx
  replicas: "3"
  routes:
    - path: /
      ports:
        - port: 80
        - port: 81
  empty:
`;
const doc = parseDocument(TEXT);

/** The line (1-based) and text a path marks. */
function mark(path: string, how: 'value' | 'key' = 'value'): string {
  const r = rangeOfField(doc, path, TEXT, how);
  return `${TEXT.slice(0, r.start).split('\n').length}: ${TEXT.slice(r.start, r.end)}`;
}

test('field paths split as field.Path prints them, brackets for indexes and keys', () => {
  assert.deepEqual(fieldSteps('spec.routes[0].ports[1].port'), [
    'spec',
    'routes',
    0,
    'ports',
    1,
    'port',
  ]);
  assert.deepEqual(fieldSteps('metadata.annotations[example.com/a]'), [
    'metadata',
    'annotations',
    'example.com/a',
  ]);
  assert.deepEqual(fieldSteps('.metadata.foo'), ['metadata', 'foo']);
  assert.deepEqual(fieldSteps(''), []);
});

test('a scalar is marked by its value, a block by its key, a list item by its first line', () => {
  assert.equal(mark('spec.replicas'), '11: "3"');
  assert.equal(mark('spec.routes[0].ports[1].port'), '16: 81');
  assert.equal(mark('spec.routes'), '12: routes');
  assert.equal(mark('spec.routes[0]'), '13: path: /');
  assert.equal(mark('spec.replicas', 'key'), '11: replicas');
  // A key with dots, bracketed (field.Path's Key) or not (kube-openapi's child names).
  assert.equal(mark('metadata.labels[app.kubernetes.io/name]'), '8: shop');
  assert.equal(mark('metadata.labels.app.kubernetes.io/name'), '8: shop');
});

test('an error naming a map by its field is marked on the entry its value names', () => {
  const r = rangeOfError(
    doc,
    'metadata.labels',
    'Invalid value: "app.kubernetes.io/name": name part must consist of alphanumeric characters',
    TEXT,
  );
  assert.equal(TEXT.slice(r.start, r.end), 'app.kubernetes.io/name');
  const plain = rangeOfError(doc, 'metadata.labels', 'Invalid value: "elsewhere": no', TEXT);
  assert.equal(TEXT.slice(plain.start, plain.end), 'labels');
});

test('a field that is not there is marked on the nearest field that is', () => {
  assert.equal(mark('spec.routes[0].host'), '13: path: /');
  assert.equal(mark('spec.routes[3].path'), '12: routes');
  assert.equal(mark('spec.empty.size'), '17: empty');
  assert.equal(mark('spec.empty'), '17: empty');
  assert.equal(mark('status.phase'), '1: apiVersion: apps.example.com/v1');
  assert.equal(mark('<nil>'), '1: apiVersion: apps.example.com/v1');
});

/** Each problem of a Status as `line: message`. */
function placed(status: Parameters<typeof problemsOfStatus>[2]): string[] {
  return problemsOfStatus(doc, TEXT, status).map(
    (p) => `${TEXT.slice(0, p.range.start).split('\n').length}: ${p.message}`,
  );
}

test("a 422's causes are each on their field, worded as the Status message words them", () => {
  const err = newInvalid({ group: 'apps.example.com', kind: 'WebApp' }, 'shop', [
    fieldInvalid('spec.replicas', 'string', 'spec.replicas in body must be of type integer'),
    fieldRequired('spec.routes[0].ports[1].name'),
  ]);
  assert.deepEqual(placed(err.status), [
    '11: spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer',
    '16: spec.routes[0].ports[1].name: Required value',
  ]);
});

test('a Status without causes is placed on the field it is about', () => {
  const conflict = newConflict(
    { group: 'apps.example.com', resource: 'webapps' },
    'shop',
    OBJECT_MODIFIED,
  );
  assert.deepEqual(placed(conflict.status), [`6: ${conflict.message}`]);
  const typed = newUnknownStorageError(
    'failed to create typed patch object (default/shop; apps.example.com/v1, Kind=WebApp): .spec.image: field not declared in schema',
  );
  const [p] = problemsOfStatus(doc, TEXT, typed.status);
  assert.equal(TEXT.slice(p!.range.start, p!.range.end), 'image');
  const ns = newNotFound({ group: '', resource: 'namespaces' }, 'default');
  assert.deepEqual(placed(ns.status), [`5: ${ns.message}`]);
  const other = newNotFound({ group: 'apps.example.com', resource: 'webapps' }, 'shop');
  assert.deepEqual(placed(other.status), [`1: ${other.message}`]);
});

test("a write's error gives its Status: the cluster's StatusError, or a client's JSON body", () => {
  const err = newInvalid({ group: 'apps.example.com', kind: 'WebApp' }, 'shop', [
    fieldRequired('spec.image'),
  ]);
  assert.deepEqual(statusOfError(err), err.status);
  assert.deepEqual(statusOfError({ code: 422, body: JSON.stringify(err.status) }), err.status);
  assert.deepEqual(statusOfError({ code: 422, body: err.status }), err.status);
  assert.equal(statusOfError(new Error('connection refused')), undefined);
  assert.equal(statusOfError({ body: 'not json' }), undefined);
});
