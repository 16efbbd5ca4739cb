/**
 * Graceful Pod deletion as kubectl sees it against `reconcile-studio serve` with a fake kubelet
 * that takes its time (`--pod-termination-delay`): a deleted running pod is listed Terminating
 * until the kubelet is done, `--grace-period=0 --force` removes it at once, and a ConfigMap's
 * delete (answered with a Status) reads as deleted.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { kubectl, ok, serve } from './serve';
import type { Served } from './serve';

let s: Served;
before(async () => {
  s = await serve(['--pod-termination-delay', '600000']);
});
after(() => s.stop());

test('kubectl lists a deleted pod Terminating until the kubelet is done; --force deletes it now', async () => {
  await ok(s.kubeconfig, ['run', 'p', '--image=nginx:1.27']);
  await ok(s.kubeconfig, ['wait', '--for=condition=Ready', 'pod/p', '--timeout=20s']);
  assert.match(await ok(s.kubeconfig, ['delete', 'pod', 'p', '--wait=false']), /pod "p" deleted/);
  assert.match(await ok(s.kubeconfig, ['get', 'pod', 'p', '--no-headers']), /\bTerminating\b/);
  const seconds = (
    await ok(s.kubeconfig, [
      'get',
      'pod',
      'p',
      '-o',
      'jsonpath={.metadata.deletionGracePeriodSeconds}',
    ])
  ).trim();
  assert.equal(seconds, '30');
  await ok(s.kubeconfig, ['delete', 'pod', 'p', '--grace-period=0', '--force']);
  const gone = await kubectl(s.kubeconfig, ['get', 'pod', 'p']);
  assert.notEqual(gone.code, 0);
  assert.match(gone.stderr, /NotFound|not found/);
});

test('kubectl delete of a ConfigMap, answered with a Status, reads as deleted', async () => {
  await ok(s.kubeconfig, ['create', 'configmap', 'c']);
  assert.match(await ok(s.kubeconfig, ['delete', 'configmap', 'c']), /configmap "c" deleted/);
});
