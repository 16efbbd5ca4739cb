/**
 * Service account tokens as kube-apiserver issues and authenticates them (pkg/serviceaccount):
 * the JWT's claims, and the checks of issuer, signature, audiences, times and the objects named.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { Cluster } from '../../../src/cluster/cluster';
import { parseToken, verifyToken } from '../../../src/cluster/auth/jwt';
import {
  ServiceAccountTokens,
  goQuoted,
  type TokenAuthentication,
} from '../../../src/cluster/auth/serviceaccounttoken';
import { VirtualClock } from '../../../src/util/clock';

const ISSUER = 'https://127.0.0.1:6443';
const START = Date.parse('2026-01-01T00:00:00Z');

function setup() {
  const clock = new VirtualClock(START);
  const cluster = new Cluster({ clock });
  const tokens = new ServiceAccountTokens(ISSUER, [ISSUER], cluster, () => clock.now());
  const sa = cluster.create({
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'builder', namespace: 'default' },
  });
  const subject = { namespace: 'default', name: 'builder', uid: sa.metadata.uid! };
  return { clock, cluster, tokens, subject };
}

function userOf(a: TokenAuthentication) {
  assert.ok(a.handled && 'user' in a, JSON.stringify(a));
  return a;
}

function errorOf(a: TokenAuthentication): string {
  assert.ok(a.handled && 'error' in a, JSON.stringify(a));
  return a.error;
}

describe('service account token claims', () => {
  it("carries kube-apiserver's claims: issuer, subject, audiences, times, JTI and the kubernetes.io private claim", () => {
    const { tokens, subject } = setup();
    const t = parseToken(tokens.issue(subject, 3600, ['a', 'b']))!;
    const now = START / 1000;
    assert.deepEqual(t.header, { alg: 'ES256', kid: tokens.key.kid });
    const { jti, ...claims } = t.claims;
    assert.match(String(jti), /^[0-9a-f-]{36}$/);
    assert.deepEqual(claims, {
      aud: ['a', 'b'],
      exp: now + 3600,
      iat: now,
      iss: ISSUER,
      'kubernetes.io': {
        namespace: 'default',
        serviceaccount: { name: 'builder', uid: subject.uid },
      },
      nbf: now,
      sub: 'system:serviceaccount:default:builder',
    });
  });

  it('writes the claims with their keys sorted, as encoding/json writes the merged claim map', () => {
    const { tokens, subject } = setup();
    const token = tokens.issue(
      { ...subject, pod: { name: 'p', uid: 'u' }, node: { name: 'n' } },
      600,
      ['x'],
    );
    const payload = Buffer.from(token.split('.')[1]!, 'base64url').toString();
    assert.ok(payload.startsWith('{"aud":["x"],"exp":'), payload);
    assert.ok(
      payload.includes(
        '"kubernetes.io":{"namespace":"default","node":{"name":"n"},"pod":{"name":"p","uid":"u"},"serviceaccount":',
      ),
      payload,
    );
  });

  it("names its key by the SHA-256 of the public key's PKIX DER (keyIDFromPublicKey) and verifies under it", () => {
    const { tokens, subject } = setup();
    const der = tokens.key.publicKey.export({ type: 'spki', format: 'der' });
    assert.equal(tokens.key.kid, createHash('sha256').update(der).digest('base64url'));
    assert.equal(verifyToken(tokens.key, parseToken(tokens.issue(subject, 600, []))!), true);
  });
});

describe('service account token authentication', () => {
  it('authenticates a token as the service account, its groups and its credential id', () => {
    const { tokens, subject } = setup();
    const token = tokens.issue(subject, 3600, [ISSUER]);
    const jti = String(parseToken(token)!.claims.jti);
    const a = userOf(tokens.authenticate(token));
    assert.deepEqual(a.audiences, [ISSUER]);
    assert.deepEqual(a.user, {
      username: 'system:serviceaccount:default:builder',
      uid: subject.uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default'],
      extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${jti}`] },
    });
  });

  it('leaves a token of another issuer, or no JWT at all, to the other authenticators', () => {
    const { cluster, tokens, subject } = setup();
    const other = new ServiceAccountTokens(
      'https://elsewhere',
      ['https://elsewhere'],
      cluster,
      () => START,
    );
    assert.deepEqual(tokens.authenticate(other.issue(subject, 3600, [])), { handled: false });
    assert.deepEqual(tokens.authenticate('not-a-jwt'), { handled: false });
  });

  it("refuses a token whose signature does not verify with go-jose's error", () => {
    const { cluster, tokens, subject } = setup();
    // Same issuer, another key: what a token from a previous run of the server is.
    const previous = new ServiceAccountTokens(ISSUER, [ISSUER], cluster, () => START);
    assert.equal(
      errorOf(tokens.authenticate(previous.issue(subject, 3600, [ISSUER]))),
      'go-jose/go-jose: error in cryptographic primitive',
    );
  });

  it('refuses a token for audiences the caller does not accept, naming both lists as Go prints them', () => {
    const { tokens, subject } = setup();
    const token = tokens.issue(subject, 3600, ['a', 'b']);
    assert.equal(
      errorOf(tokens.authenticate(token)),
      `token audiences ["a" "b"] is invalid for the target audiences ["${ISSUER}"]`,
    );
    assert.deepEqual(userOf(tokens.authenticate(token, ['b', 'c'])).audiences, ['b']);
    assert.equal(goQuoted([]), '[]');
  });

  it('accepts a token until a minute past its expiry (the leeway), then says it has expired', async () => {
    const { clock, tokens, subject } = setup();
    const token = tokens.issue(subject, 600, [ISSUER]);
    await clock.advance(660_000);
    userOf(tokens.authenticate(token));
    await clock.advance(1000);
    assert.equal(errorOf(tokens.authenticate(token)), 'service account token has expired');
  });

  it('refuses a token once its service account is gone, or replaced under the same name', () => {
    const { cluster, tokens, subject } = setup();
    const token = tokens.issue(subject, 3600, [ISSUER]);
    const sa = { apiVersion: 'v1', kind: 'ServiceAccount' };
    cluster.delete(sa, { namespace: 'default', name: 'builder' });
    assert.equal(errorOf(tokens.authenticate(token)), 'serviceaccounts "builder" not found');
    const again = cluster.create({ ...sa, metadata: { name: 'builder', namespace: 'default' } });
    assert.equal(
      errorOf(tokens.authenticate(token)),
      `service account UID (${again.metadata.uid}) does not match claim (${subject.uid})`,
    );
  });

  it("puts the bound pod and its node in the user's extra, and refuses the token once the pod is gone", () => {
    const { cluster, tokens, subject } = setup();
    const pod = cluster.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'default' },
      spec: { serviceAccountName: 'builder', containers: [{ name: 'c', image: 'i' }] },
    });
    const token = tokens.issue(
      { ...subject, pod: { name: 'p', uid: pod.metadata.uid! }, node: { name: 'n1' } },
      3600,
      [ISSUER],
    );
    const extra = userOf(tokens.authenticate(token)).user.extra!;
    assert.deepEqual(extra['authentication.kubernetes.io/pod-name'], ['p']);
    assert.deepEqual(extra['authentication.kubernetes.io/pod-uid'], [pod.metadata.uid]);
    assert.deepEqual(extra['authentication.kubernetes.io/node-name'], ['n1']);
    assert.equal(extra['authentication.kubernetes.io/node-uid'], undefined);
    cluster.delete(
      { apiVersion: 'v1', kind: 'Pod' },
      { namespace: 'default', name: 'p' },
      { gracePeriodSeconds: 0 },
    );
    assert.equal(errorOf(tokens.authenticate(token)), 'service account token has been invalidated');
  });
});
