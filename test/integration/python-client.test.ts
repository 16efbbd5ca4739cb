/**
 * The official Python client (Debian's python3-kubernetes), as Python operators use it, against
 * `reconcile-studio serve`: `Watch().stream` (watch=True), DELETE answered by a V1Status,
 * `orphan_dependents=True`, and paging with `_continue` over a snapshot.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ok, runFixture, serve } from './serve';
import type { Served } from './serve';

let s: Served;
before(async () => {
  s = await serve();
  await ok(s.kubeconfig, ['create', 'namespace', 'py']);
});
after(() => s.stop());

test('the Python client watches, deletes, orphans and pages as against kube-apiserver', async () => {
  // Debian's system Python: python3-kubernetes is installed for it, not for a pyenv on the PATH.
  const out = await runFixture('/usr/bin/python3', 'python_client.py', s.kubeconfig);
  assert.deepEqual(out.watched, ['ADDED', 'py-b']);
  assert.deepEqual(out.deleted, ['Success', 'py-a', 'configmaps']);
  assert.deepEqual(out.orphan, ['example.com/x', 'orphan']);
  // The page after the first does not show py-q, created in between. kube-root-ca.crt is the
  // namespace's own, as kube-controller-manager's root CA publisher puts it into every namespace.
  assert.deepEqual(out.paged, [
    'kube-root-ca.crt',
    'py-b',
    'py-o',
    'py-p0',
    'py-p1',
    'py-p2',
    'py-p3',
  ]);
});
