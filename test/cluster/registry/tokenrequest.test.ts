/**
 * serviceaccounts/NAME/token over HTTP, answered as kube-apiserver's TokenREST answers it, and
 * the token it issues used as a request's credential.
 */
import assert from 'node:assert/strict';
import { createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { served, type Served } from '../http';

let s: Served;
before(async () => {
  s = await served();
  await s.call('POST', '/api/v1/namespaces/default/serviceaccounts', {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'builder' },
  });
});
after(() => s.close());

const TOKEN = '/api/v1/namespaces/default/serviceaccounts/builder/token';
type Obj = Record<string, unknown>;
const request = (spec: Obj, metadata: Obj = {}) => ({
  apiVersion: 'authentication.k8s.io/v1',
  kind: 'TokenRequest',
  metadata,
  spec,
});
const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
  const r = await s.call('POST', path, body, headers);
  return { status: r.status, body: JSON.parse(r.body) as Obj };
};
const tokenOf = (body: Obj) => (body.status as { token: string }).token;

describe('TokenRequest', () => {
  it("issues a token for the apiserver's audiences, for an hour, answering the request filled in", async () => {
    const sa = s.cluster.get(
      { apiVersion: 'v1', kind: 'ServiceAccount' },
      { namespace: 'default', name: 'builder' },
    );
    const r = await post(TOKEN, request({}));
    assert.equal(r.status, 201);
    const md = r.body.metadata as Obj;
    assert.equal(md.name, 'builder');
    assert.equal(md.namespace, 'default');
    assert.equal(md.uid, sa.metadata.uid);
    assert.deepEqual(r.body.spec, {
      audiences: [s.server.url],
      expirationSeconds: 3600,
      boundObjectRef: null,
    });
    const status = r.body.status as { token: string; expirationTimestamp: string };
    assert.equal(
      Date.parse(status.expirationTimestamp) - Date.parse(md.creationTimestamp as string),
      3600_000,
    );
    assert.equal(status.token.split('.').length, 3);
  });

  it('authenticates requests made with the token as the service account', async () => {
    const token = tokenOf((await post(TOKEN, request({}))).body);
    const r = await post(
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      { authorization: `Bearer ${token}` },
    );
    const user = (r.body.status as { userInfo: Obj }).userInfo;
    assert.equal(user.username, 'system:serviceaccount:default:builder');
    assert.deepEqual(user.groups, [
      'system:serviceaccounts',
      'system:serviceaccounts:default',
      'system:authenticated',
    ]);
  });

  it("refuses with the apiserver's errors: too short a life, another name, another UID, no such account", async () => {
    const short = await post(TOKEN, request({ expirationSeconds: 10 }));
    assert.equal(short.status, 422);
    assert.equal(
      short.body.message,
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 10: may not specify a duration less than 10 minutes',
    );
    const renamed = await post(TOKEN, request({}, { name: 'other' }));
    assert.equal(
      renamed.body.message,
      'TokenRequest.authentication.k8s.io "builder" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified',
    );
    const uid = await post(TOKEN, request({}, { uid: 'abc' }));
    assert.equal(uid.status, 409);
    assert.match(
      String(uid.body.message),
      /^Operation cannot be fulfilled on TokenRequest\.authentication\.k8s\.io "builder": the UID in the token request \(abc\) does not match the UID of the service account/,
    );
    const missing = await post(
      '/api/v1/namespaces/default/serviceaccounts/nobody/token',
      request({}),
    );
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'serviceaccounts "nobody" not found');
  });

  it('binds a token to a pod of the service account, with its node, and refuses other pods and kinds', async () => {
    await post('/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'runner' },
      spec: {
        serviceAccountName: 'builder',
        nodeName: 'n1',
        containers: [{ name: 'c', image: 'i' }],
      },
    });
    await post('/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'stranger' },
      spec: { containers: [{ name: 'c', image: 'i' }] },
    });
    const bound = await post(
      TOKEN,
      request({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'runner' } }),
    );
    assert.equal(bound.status, 201);
    const claims = JSON.parse(
      Buffer.from(tokenOf(bound.body).split('.')[1]!, 'base64url').toString(),
    ) as { 'kubernetes.io': { pod: Obj; node: Obj } };
    assert.equal(claims['kubernetes.io'].pod.name, 'runner');
    assert.deepEqual(claims['kubernetes.io'].node, { name: 'n1' });
    const stranger = await post(
      TOKEN,
      request({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'stranger' } }),
    );
    assert.equal(stranger.status, 400);
    assert.equal(
      stranger.body.message,
      'cannot bind token for serviceaccount "builder" to pod running with different serviceaccount name.',
    );
    const gone = await post(
      TOKEN,
      request({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'nope' } }),
    );
    assert.equal(gone.status, 404);
    assert.equal(gone.body.message, 'pods "nope" not found');
    const configMap = await post(
      TOKEN,
      request({ boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'x' } }),
    );
    assert.equal(configMap.status, 400);
    assert.equal(configMap.body.message, 'cannot bind token to object of type /v1, Kind=ConfigMap');
  });

  it('is reviewed by TokenReview, which fails it for audiences it was not issued for', async () => {
    const token = tokenOf((await post(TOKEN, request({}))).body);
    const review = (audiences?: string[]) =>
      post('/apis/authentication.k8s.io/v1/tokenreviews', {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        spec: { token, ...(audiences ? { audiences } : {}) },
      });
    const ok = (await review()).body.status as Obj;
    assert.equal(ok.authenticated, true);
    assert.deepEqual(ok.audiences, [s.server.url]);
    const other = (await review(['vault'])).body.status as Obj;
    assert.deepEqual(other, {
      user: {},
      error: `[invalid bearer token, token audiences ["${s.server.url}"] is invalid for the target audiences ["vault"]]`,
    });
  });

  it('is a POST only', async () => {
    const r = await s.call('GET', TOKEN);
    assert.equal(r.status, 405);
  });
});

describe('service account issuer discovery', () => {
  it("publishes the issuer and its key, with which a relying party verifies the token's signature", async () => {
    const config = JSON.parse((await s.get('/.well-known/openid-configuration')).body) as Obj;
    assert.equal(config.issuer, s.server.url);
    assert.equal(config.jwks_uri, `${s.server.url}/openid/v1/jwks`);
    const jwks = await s.get('/openid/v1/jwks');
    assert.equal(jwks.headers['content-type'], 'application/jwk-set+json');
    assert.equal(jwks.headers['cache-control'], 'public, max-age=3600');
    const [jwk] = (JSON.parse(jwks.body) as { keys: JsonWebKey[] }).keys;
    const token = tokenOf((await post(TOKEN, request({}))).body);
    const [header, payload, signature] = token.split('.');
    assert.equal(
      verify(
        'sha256',
        Buffer.from(`${header}.${payload}`),
        { key: createPublicKey({ key: jwk!, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
        Buffer.from(signature!, 'base64url'),
      ),
      true,
    );
  });

  it('answers other methods 405', async () => {
    const r = await s.call('POST', '/openid/v1/jwks', {});
    assert.equal(r.status, 405);
  });
});
