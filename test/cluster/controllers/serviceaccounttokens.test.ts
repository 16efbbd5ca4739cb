/**
 * The service account tokens controller on a served cluster: a token Secret naming a service
 * account gets a legacy token, the root CA and the namespace; the token authenticates as the
 * account while the Secret holds it; the Secret goes when its service account goes.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { served, type Served } from '../http';

let s: Served;
before(async () => {
  s = await served({}, { controllers: true });
});
after(() => s.close());

const NS = '/api/v1/namespaces/default';
type Secret = { data?: Record<string, string>; metadata: { annotations?: Record<string, string> } };

async function waitFor<T>(f: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const v = await f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('never came');
}

test('a token Secret gets a legacy token, the CA and the namespace, and the token authenticates as its account', async () => {
  const sa = await s.call('POST', `${NS}/serviceaccounts`, { metadata: { name: 'robot' } });
  assert.equal(sa.status, 201, sa.body);
  const uid = (JSON.parse(sa.body) as { metadata: { uid: string } }).metadata.uid;
  const created = await s.call('POST', `${NS}/secrets`, {
    metadata: {
      name: 'robot-token',
      annotations: { 'kubernetes.io/service-account.name': 'robot' },
    },
    type: 'kubernetes.io/service-account-token',
  });
  assert.equal(created.status, 201, created.body);
  const secret = await waitFor(async () => {
    const got = JSON.parse((await s.get(`${NS}/secrets/robot-token`)).body) as Secret;
    return got.data?.token ? got : undefined;
  });
  const text = (k: string) => Buffer.from(secret.data![k]!, 'base64').toString('utf8');
  assert.equal(text('namespace'), 'default');
  assert.equal(text('ca.crt'), s.server.caPem);
  assert.equal(secret.metadata.annotations?.['kubernetes.io/service-account.uid'], uid);
  const claims = JSON.parse(
    Buffer.from(text('token').split('.')[1]!, 'base64url').toString(),
  ) as Record<string, string>;
  assert.equal(claims.iss, 'kubernetes/serviceaccount');
  assert.equal(claims.sub, 'system:serviceaccount:default:robot');

  const review = await s.call(
    'POST',
    '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    { authorization: `Bearer ${text('token')}` },
  );
  assert.equal(review.status, 201, review.body);
  assert.equal(
    (JSON.parse(review.body) as { status: { userInfo: { username: string } } }).status.userInfo
      .username,
    'system:serviceaccount:default:robot',
  );

  // Gone with its service account; the token no longer authenticates.
  assert.equal((await s.call('DELETE', `${NS}/serviceaccounts/robot`)).status, 200);
  await waitFor(async () =>
    (await s.get(`${NS}/secrets/robot-token`)).status === 404 ? true : undefined,
  );
  const refused = await s.call('GET', `${NS}/configmaps`, undefined, {
    authorization: `Bearer ${text('token')}`,
  });
  assert.equal(refused.status, 401);
});
