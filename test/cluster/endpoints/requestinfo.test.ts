import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from '../../../src/cluster/registry/registry';
import {
  isValidPathSegmentName,
  parseRequestTarget,
  resolveResource,
} from '../../../src/cluster/endpoints/requestinfo';

test('the path is decoded once and never normalized: dot segments stay literal', () => {
  const t = parseRequestTarget('/api/v1/namespaces/victim/configmaps/%2e%2e?watch=1');
  assert.deepEqual(t.segments, ['api', 'v1', 'namespaces', 'victim', 'configmaps', '..']);
  assert.equal(t.query.get('watch'), '1');
  assert.deepEqual(parseRequestTarget('/api/v1/namespaces/%2e%2e/pods').segments, [
    'api',
    'v1',
    'namespaces',
    '..',
    'pods',
  ]);
});

test('an encoded slash separates segments, as in Go URL.Path; empty segments are kept', () => {
  assert.deepEqual(parseRequestTarget('/api/v1/a%2Fb/').segments, ['api', 'v1', 'a', 'b']);
  assert.deepEqual(parseRequestTarget('//api//v1').segments, ['api', '', 'v1']);
  assert.deepEqual(parseRequestTarget('/').segments, []);
});

test('an absolute-form target is routed by its path', () => {
  const t = parseRequestTarget('https://127.0.0.1:6443/api/v1/namespaces/x/configmaps/..?a=b');
  assert.deepEqual(t.segments.slice(-1), ['..']);
  assert.equal(t.query.get('a'), 'b');
});

test('a malformed escape is a 400 naming it', () => {
  assert.throws(
    () => parseRequestTarget('/api/v1/configmaps/%zz'),
    (e: { code: number; message: string }) =>
      e.code === 400 && e.message === 'invalid URL escape "%zz"',
  );
  assert.throws(() => parseRequestTarget('/api/%e2%28'), { code: 400 });
});

test('path segment names follow apimachinery validation/path', () => {
  assert.deepEqual(isValidPathSegmentName('..'), ["may not be '..'"]);
  assert.deepEqual(isValidPathSegmentName('.'), ["may not be '.'"]);
  assert.deepEqual(isValidPathSegmentName('a/%b'), ["may not contain '/'", "may not contain '%'"]);
  assert.deepEqual(isValidPathSegmentName('...'), []);
});

test('resolveResource refuses invalid names with the storage key functions message', () => {
  const reg = new Registry();
  assert.throws(
    () => resolveResource(reg, 'v1', ['namespaces', 'victim', 'configmaps', '..']),
    (e: { code: number; message: string }) =>
      e.code === 400 && e.message === `Name parameter invalid: "..": may not be '..'`,
  );
  assert.throws(() => resolveResource(reg, 'v1', ['namespaces', '..']), { code: 400 });
  const r = resolveResource(reg, 'v1', ['namespaces', '..', 'configmaps']);
  assert.equal(r?.namespace, '..');
  assert.equal(r?.name, undefined);
  assert.equal(resolveResource(reg, 'v1', ['namespaces', 'a', 'configmaps', '']), undefined);
  assert.equal(
    resolveResource(reg, 'v1', ['namespaces', 'a', 'configmaps', 'x', 'bogus']),
    undefined,
  );
  assert.equal(resolveResource(reg, 'v1', ['namespaces', 'a', 'status'])?.subresource, 'status');
});
