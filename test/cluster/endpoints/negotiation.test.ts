import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prefersProtobuf } from '../../../src/cluster/endpoints/negotiation';

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
