/**
 * YAML as kube-apiserver writes it (sigs.k8s.io/yaml, go-yaml v2's emitter): the expected texts
 * are a real kube-apiserver 1.36.3's answers in the differential suite's get-as-yaml scenarios.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toYaml } from '../../../src/cluster/apimachinery/yaml';

test('a string that YAML 1.1 reads as another type is double-quoted, the empty one too', () => {
  assert.equal(toYaml({ e: '', l: [''] }), 'e: ""\nl:\n- ""\n');
  assert.equal(
    toYaml({ a: 'yes', b: '2024-01-02T03:04:05Z', c: '10' }),
    'a: "yes"\nb: "2024-01-02T03:04:05Z"\nc: "10"\n',
  );
});

test('a string that cannot be plain is single-quoted, as the emitter falls back to', () => {
  assert.equal(toYaml({ scope: '*', b: 'a: b', c: '@x' }), "b: 'a: b'\nc: '@x'\nscope: '*'\n");
});

test('keys are sorted and lists sit at their key', () => {
  assert.equal(toYaml({ z: 1, a: ['p', 'q'] }), 'a:\n- p\n- q\nz: 1\n');
});
