import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NotJson, celToJson } from '../../../src/cluster/cel/celjson';
import { compile, evaluate } from '../../../src/cluster/admission/celexpression';

const run = (expression: string, bindings: Record<string, unknown> = {}) =>
  evaluate(compile(expression, true), bindings);

test('a mutation result marshals to JSON: ints and doubles as numbers, bytes as base64', () => {
  assert.deepEqual(
    celToJson(run("{'a': 1, 'b': 2.5, 'c': [true, null, 'x'], 'd': b'hi', 'e': 3u}")),
    {
      a: 1,
      b: 2.5,
      c: [true, null, 'x'],
      d: 'aGk=',
      e: 3,
    },
  );
});

test('a value JSON cannot hold (a type, a map with an int key) does not marshal', () => {
  assert.throws(() => celToJson(run('int')), NotJson);
  assert.throws(() => celToJson(run("{1: 'a'}")), NotJson);
});

test('object constructions in a mutation build maps of their fields', () => {
  assert.deepEqual(
    celToJson(
      run(
        "Object{spec: Object.spec{replicas: 3, template: Object.spec.template{}}, x: [JSONPatch{op: 'add', path: '/a'}]}",
      ),
    ),
    { spec: { replicas: 3, template: {} }, x: [{ op: 'add', path: '/a' }] },
  );
});

test('jsonpatch.escapeKey escapes ~ and / as RFC 6901 asks', () => {
  assert.equal(
    run("'/metadata/labels/' + jsonpatch.escapeKey('k8s.io/my~label')"),
    '/metadata/labels/k8s.io~1my~0label',
  );
});
