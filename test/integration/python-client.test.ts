/**
 * The official Python client (Debian's python3-kubernetes), as Python operators use it, against
 * `reconcile-studio serve`: `Watch().stream` (watch=True), DELETE answered by a V1Status,
 * `orphan_dependents=True`, and paging with `_continue` over a snapshot.
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
  await ok(s.kubeconfig, ['create', 'namespace', 'py']);
});
after(() => s.stop());

/** Debian's system Python: python3-kubernetes is installed for it, not for a pyenv on the PATH. */
const PYTHON = '/usr/bin/python3';

function python(script: string, ...args: string[]): Promise<string> {
  return new Promise((res, rej) =>
    execFile(PYTHON, [script, ...args], { timeout: 60_000 }, (err, stdout, stderr) =>
      err ? rej(new Error(`${err.message}\n${stderr}`)) : res(stdout),
    ),
  );
}

test('the Python client watches, deletes, orphans and pages as against kube-apiserver', async () => {
  const out = JSON.parse(
    await python(join(ROOT, 'test/integration/fixtures/python_client.py'), s.kubeconfig),
  ) as Record<string, unknown>;
  assert.deepEqual(out.watched, ['ADDED', 'py-b']);
  assert.deepEqual(out.deleted, ['Success', 'py-a', 'configmaps']);
  assert.deepEqual(out.orphan, ['example.com/x', 'orphan']);
  // The page after the first does not show py-q, created in between.
  assert.deepEqual(out.paged, ['py-b', 'py-o', 'py-p0', 'py-p1', 'py-p2', 'py-p3']);
});
