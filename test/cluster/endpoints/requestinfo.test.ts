import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from '../../../src/cluster/registry/registry';
import {
  isValidPathSegmentName,
  requestInfoOf,
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

test('requestInfoOf reads verb, group, namespace, resource, name and subresource from the path alone', () => {
  const info = (method: string, target: string) => {
    const i = requestInfoOf(method, target);
    return [
      i.isResourceRequest,
      i.verb,
      i.apiGroup,
      i.apiVersion,
      i.namespace,
      i.resource,
      i.name,
      i.subresource,
    ].join(' ');
  };
  // Cases of upstream's requestinfo_test.go, and the verbs the audit log shows for them.
  assert.equal(info('GET', '/api/v1/namespaces'), 'true list  v1  namespaces  ');
  assert.equal(info('GET', '/api/v1/namespaces/other'), 'true get  v1 other namespaces other ');
  assert.equal(info('GET', '/api/v1/namespaces/other/pods'), 'true list  v1 other pods  ');
  assert.equal(info('GET', '/api/v1/namespaces/other/pods/foo'), 'true get  v1 other pods foo ');
  assert.equal(
    info('PUT', '/api/v1/namespaces/other/finalize'),
    'true update  v1 other namespaces other finalize',
  );
  assert.equal(
    info('PUT', '/apis/apps/v1/namespaces/ns/deployments/d/status'),
    'true update apps v1 ns deployments d status',
  );
  assert.equal(info('GET', '/api/v1/pods?watch=true'), 'true watch  v1  pods  ');
  assert.equal(info('GET', '/api/v1/pods?watch=false'), 'true list  v1  pods  ');
  assert.equal(info('GET', '/api/v1/watch/namespaces/other/pods'), 'true watch  v1 other pods  ');
  assert.equal(
    info('GET', '/api/v1/namespaces/other/pods?watch=1&fieldSelector=metadata.name%3Dfoo'),
    'true watch  v1 other pods foo ',
  );
  assert.equal(
    info('DELETE', '/api/v1/namespaces/other/pods'),
    'true deletecollection  v1 other pods  ',
  );
  assert.equal(
    info('DELETE', '/api/v1/namespaces/other/pods/foo'),
    'true delete  v1 other pods foo ',
  );
  assert.equal(
    info('POST', '/apis/example.com/v1/namespaces/ns/widgets'),
    'true create example.com v1 ns widgets  ',
  );
  assert.equal(
    info('GET', '/api/v1/proxy/namespaces/ns/services/s/extra'),
    'true proxy  v1 ns services s ',
  );
  // Fewer than four parts under /apis, and anything outside /api and /apis: not a resource.
  assert.equal(info('GET', '/apis/apps/v1'), 'false get      ');
  assert.equal(info('GET', '/version'), 'false get      ');
  assert.equal(info('POST', '/healthz'), 'false post      ');
});
