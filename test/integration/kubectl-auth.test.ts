/**
 * kubectl's `auth` commands against `reconcile-studio serve`, which answers the review APIs as
 * kube-apiserver with a token file and `--authorization-mode=AlwaysAllow`: `auth can-i` (a
 * SelfSubjectAccessReview), `auth can-i --list` (a SelfSubjectRulesReview), `auth whoami` (a
 * SelfSubjectReview), a TokenReview of the kubeconfig's own token, and `create token` (a
 * TokenRequest) whose token kubectl then authenticates with; `certificate approve` and `deny`
 * (a CertificateSigningRequest's approval subresource).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import YAML from 'yaml';
import { csrRequest } from '../cluster/pkcs10';
import { kubectl, ok, serve } from './serve';
import type { Served } from './serve';

let s: Served;
before(async () => {
  s = await serve();
});
after(async () => {
  await s?.stop();
});

test('kubectl auth can-i create deployments answers yes, exit 0', async () => {
  const r = await kubectl(s.kubeconfig, ['auth', 'can-i', 'create', 'deployments']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'yes');
});

test('kubectl auth can-i of a non-resource URL answers yes', async () => {
  assert.equal((await ok(s.kubeconfig, ['auth', 'can-i', 'get', '/metrics'])).trim(), 'yes');
});

test('kubectl auth can-i --list lists the rule allowing everything', async () => {
  const out = await ok(s.kubeconfig, ['auth', 'can-i', '--list']);
  assert.match(out.split('\n')[0], /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs/);
  assert.match(out, /^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/m);
  assert.match(out, /^\s+\[\*\]\s+\[\]\s+\[\*\]$/m);
});

test('kubectl auth whoami shows the user of the token and its group', async () => {
  const out = await ok(s.kubeconfig, ['auth', 'whoami']);
  assert.match(out, /^Username\s+reconcile-studio$/m);
  assert.match(out, /^Groups\s+\[system:authenticated\]$/m);
});

test("a TokenReview of the kubeconfig's own token authenticates as its user", async () => {
  const config = YAML.parse(readFileSync(s.kubeconfig, 'utf8')) as {
    users: { user: { token: string } }[];
  };
  const review = JSON.stringify({
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenReview',
    spec: { token: config.users[0].user.token },
  });
  // POSTed raw: `kubectl create -f` would first validate it client-side against the OpenAPI v2
  // document in protobuf (a review has no PATCH path to learn server-side validation from),
  // which the fake does not serve.
  const raw = await ok(
    s.kubeconfig,
    ['create', '--raw', '/apis/authentication.k8s.io/v1/tokenreviews', '-f', '-'],
    review,
  );
  const out = JSON.parse(raw) as {
    status: { authenticated: boolean; user: { username: string; groups: string[] } };
  };
  assert.equal(out.status.authenticated, true);
  assert.deepEqual(out.status.user, {
    username: 'reconcile-studio',
    groups: ['system:authenticated'],
  });
});

test('kubectl create token issues a token kubectl authenticates with as the service account', async () => {
  await ok(s.kubeconfig, ['create', 'serviceaccount', 'builder']);
  const token = (await ok(s.kubeconfig, ['create', 'token', 'builder', '--duration=20m'])).trim();
  const out = await ok(s.kubeconfig, ['--token', token, 'auth', 'whoami']);
  assert.match(out, /^Username\s+system:serviceaccount:default:builder$/m);
  assert.match(
    out,
    /^Groups\s+\[system:serviceaccounts system:serviceaccounts:default system:authenticated\]$/m,
  );
  // A token for another audience is not one the apiserver accepts.
  const vault = (await ok(s.kubeconfig, ['create', 'token', 'builder', '--audience=vault'])).trim();
  const refused = await kubectl(s.kubeconfig, ['--token', vault, 'auth', 'whoami']);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /Unauthorized/);
});

test('kubectl certificate approve and deny set the condition through the approval subresource', async () => {
  for (const name of ['to-approve', 'to-deny']) {
    const csr = {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name },
      spec: { signerName: 'example.com/signer', request: csrRequest(), usages: ['client auth'] },
    };
    await ok(
      s.kubeconfig,
      ['create', '--raw', '/apis/certificates.k8s.io/v1/certificatesigningrequests', '-f', '-'],
      JSON.stringify(csr),
    );
  }
  await ok(s.kubeconfig, ['certificate', 'approve', 'to-approve']);
  await ok(s.kubeconfig, ['certificate', 'deny', 'to-deny']);
  const conditions = async (name: string) =>
    (
      await ok(s.kubeconfig, [
        'get',
        'csr',
        name,
        '-o',
        'jsonpath={.status.conditions[*].type}/{.status.conditions[*].reason}',
      ])
    ).trim();
  assert.equal(await conditions('to-approve'), 'Approved/KubectlApprove');
  assert.equal(await conditions('to-deny'), 'Denied/KubectlDeny');
  // A decision is final: kubectl says so rather than overwrite it.
  const again = await kubectl(s.kubeconfig, ['certificate', 'approve', 'to-deny']);
  assert.notEqual(again.code, 0);
});
