/**
 * Ruby's kubeclient (Debian's ruby-kubeclient), as Ruby operators use it, against
 * `reconcile-studio serve`: list with a resourceVersion, create, `watch_*` through the legacy
 * `/watch/` paths (a collection and one object by name), patch, delete answered by a Status, and
 * the NotFound it raises afterwards.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ok, runFixture, serve } from './serve';
import type { Served } from './serve';

let s: Served;
before(async () => {
  s = await serve();
  await ok(s.kubeconfig, ['create', 'namespace', 'rb']);
});
after(() => s.stop());

test('kubeclient lists, creates, watches through /watch/, patches and deletes', async () => {
  // Debian's system Ruby: ruby-kubeclient is installed for it, not for an rbenv on the PATH.
  const out = await runFixture('/usr/bin/ruby', 'ruby_kubeclient.rb', s.kubeconfig);
  assert.deepEqual(out.created, ['rb-a', 'v']);
  // With the namespace's kube-root-ca.crt, as kube-controller-manager's publisher puts it there.
  assert.deepEqual(out.listed, ['kube-root-ca.crt', 'rb-a']);
  assert.equal(out.listResourceVersion, true);
  assert.deepEqual(out.watched, ['ADDED', 'rb-b']);
  // The by-name watch sees rb-a's change only, not rb-b's patched just before it.
  assert.deepEqual(out.watchedByName, ['MODIFIED', 'rb-a', 'w']);
  assert.deepEqual(out.deleted, ['Status', 'Success', 'rb-a', 'configmaps']);
  assert.deepEqual(out.gone, [404, 'configmaps "rb-a" not found']);
});
