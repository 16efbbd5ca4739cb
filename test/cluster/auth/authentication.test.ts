/**
 * The request authenticator's pieces, as k8s.io/apiserver's: how the bearer token is read from
 * the header, and how the union's errors are worded.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  RequestAuthenticator,
  aggregateMessage,
  bearerToken,
} from '../../../src/cluster/auth/authentication';

describe('bearerToken', () => {
  it('reads `Bearer <token>` with the scheme in any case, the header trimmed', () => {
    assert.equal(bearerToken('Bearer abc'), 'abc');
    assert.equal(bearerToken('  bearer abc  '), 'abc');
    assert.equal(bearerToken('BEARER abc extra'), 'abc');
  });

  it('finds no token in other schemes, an empty token or no header', () => {
    assert.equal(bearerToken('Basic abc'), undefined);
    assert.equal(bearerToken('Bearer'), undefined);
    assert.equal(bearerToken('Bearer  abc'), undefined);
    assert.equal(bearerToken(''), undefined);
  });
});

describe('aggregateMessage', () => {
  it('words one error alone, several in brackets, duplicates once', () => {
    assert.equal(aggregateMessage(['a']), 'a');
    assert.equal(aggregateMessage(['a', 'b']), '[a, b]');
    assert.equal(aggregateMessage(['a', 'a']), 'a');
  });
});

describe('RequestAuthenticator', () => {
  it('authenticates a token map user in system:authenticated, with no audiences of its own', () => {
    const authn = new RequestAuthenticator(new Map([['t1', 'alice']]));
    assert.deepEqual(authn.authenticateRequest('Bearer t1'), {
      username: 'alice',
      groups: ['system:authenticated'],
    });
    assert.deepEqual(authn.authenticateToken('t2'), { error: 'invalid bearer token' });
  });
});
