import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ruleMatches } from '../../../../src/cluster/admission/webhook/rules';
import { parseServiceMapping } from '../../../../src/cluster/admission/webhook/client';

const rule = (resources: string[], scope = '*') => ({
  operations: ['CREATE'],
  apiGroups: ['apps'],
  apiVersions: ['v1'],
  resources,
  scope,
});
const attrs = (resource: string, subresource = '', namespace = 'default') => ({
  operation: 'CREATE',
  group: 'apps',
  version: 'v1',
  resource,
  subresource,
  namespace,
});

describe('webhook rules', () => {
  it('match a resource exactly, and a subresource only when the rule names it', () => {
    assert.equal(ruleMatches(rule(['deployments']), attrs('deployments')), true);
    assert.equal(ruleMatches(rule(['deployments']), attrs('deployments', 'scale')), false);
    assert.equal(ruleMatches(rule(['deployments/*']), attrs('deployments', 'scale')), true);
    assert.equal(ruleMatches(rule(['*/scale']), attrs('statefulsets', 'scale')), true);
    assert.equal(ruleMatches(rule(['*']), attrs('statefulsets', 'status')), false);
  });

  it('honour scope: Namespaced skips cluster-scoped requests, Cluster skips namespaced ones', () => {
    assert.equal(ruleMatches(rule(['*'], 'Namespaced'), attrs('deployments', '', '')), false);
    assert.equal(ruleMatches(rule(['*'], 'Cluster'), attrs('deployments')), false);
    assert.equal(ruleMatches(rule(['*'], 'Cluster'), attrs('deployments', '', '')), true);
  });
});

describe('--webhook-service', () => {
  it('maps namespace/name to host:port and refuses anything else', () => {
    assert.deepEqual(parseServiceMapping('system/hook=127.0.0.1:9443'), [
      'system/hook',
      '127.0.0.1:9443',
    ]);
    assert.throws(() => parseServiceMapping('hook=127.0.0.1:9443'), /namespace\/name=host:port/);
    assert.throws(() => parseServiceMapping('a/b=127.0.0.1:70000'), /namespace\/name=host:port/);
  });
});
