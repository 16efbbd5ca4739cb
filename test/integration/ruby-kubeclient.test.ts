/**
 * Ruby's kubeclient (Debian's ruby-kubeclient), as Ruby operators use it, against
 * `reconcile-studio serve`: list with a resourceVersion, create, `watch_*` through the legacy
 * `/watch/` paths (a collection and one object by name), patch, delete answered by a Status, and
 * the NotFound it raises afterwards.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, ok, serve } from './serve';
import type { Served } from './serve';

let s: Served;
before(async () => {
  s = await serve();
  await ok(s.kubeconfig, ['create', 'namespace', 'rb']);
});
after(() => s.stop());

/** Debian's system Ruby: ruby-kubeclient is installed for it, not for an rbenv on the PATH. */
const RUBY = '/usr/bin/ruby';

function ruby(script: string, ...args: string[]): Promise<string> {
  return new Promise((res, rej) =>
    execFile(RUBY, [script, ...args], { timeout: 60_000 }, (err, stdout, stderr) =>
      err ? rej(new Error(`${err.message}\n${stderr}`)) : res(stdout),
    ),
  );
}

test('kubeclient lists, creates, watches through /watch/, patches and deletes', async () => {
  const out = JSON.parse(
    await ruby(join(ROOT, 'test/integration/fixtures/ruby_kubeclient.rb'), s.kubeconfig),
  ) as Record<string, unknown>;
  assert.deepEqual(out.created, ['rb-a', 'v']);
  assert.deepEqual(out.listed, ['rb-a']);
  assert.equal(out.listResourceVersion, true);
  assert.deepEqual(out.watched, ['ADDED', 'rb-b']);
  // The by-name watch sees rb-a's change only, not rb-b's patched just before it.
  assert.deepEqual(out.watchedByName, ['MODIFIED', 'rb-a', 'w']);
  assert.deepEqual(out.deleted, ['Status', 'Success', 'rb-a', 'configmaps']);
  assert.deepEqual(out.gone, [404, 'configmaps "rb-a" not found']);
});
