import assert from 'node:assert/strict';
import { test } from 'node:test';
import { duplicateFields } from '../../../src/cluster/endpoints/duplicatefields';

test('a key given twice in one object is a duplicate field, named by its dotted path', () => {
  assert.deepEqual(duplicateFields('{"spec":{"replicas":1,"replicas":2}}'), ['spec.replicas']);
  assert.deepEqual(duplicateFields('{"a":1,"a":2,"a":3}'), ['a', 'a']);
});

test('array items are named by index, and equal keys in sibling objects are not duplicates', () => {
  assert.deepEqual(
    duplicateFields(
      '{"spec":{"containers":[{"name":"a","image":"x"},{"name":"b","name":"c"}]},"x":{"name":1}}',
    ),
    ['spec.containers[1].name'],
  );
});

test('keys inside strings and escaped quotes do not confuse it', () => {
  assert.deepEqual(duplicateFields('{"data":{"k":"\\"k\\":1,\\"k\\":2","k2":"{\\"x\\"}"}}'), []);
  assert.deepEqual(duplicateFields('{"a\\"b":1,"a\\"b":2}'), ['a"b']);
  assert.deepEqual(duplicateFields('{"metadata":{"name":"x"},"data":{"name":"x"}}'), []);
});
