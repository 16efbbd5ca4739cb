import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ok, serve } from './serve';

test('serve --state saves on change and restores after a restart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rs-state-it-'));
  const state = join(dir, 'cluster.json');
  try {
    const a = await serve(['--state', state, '--no-controllers']);
    await ok(a.kubeconfig, ['create', 'configmap', 'keep-me', '--from-literal=k=v']);
    await a.stop();
    assert.ok(existsSync(state));
    const b = await serve(['--state', state, '--no-controllers']);
    try {
      assert.match(b.output(), /Restored \d+ objects/);
      assert.equal(
        await ok(b.kubeconfig, ['get', 'configmap', 'keep-me', '-o', 'jsonpath={.data.k}']),
        'v',
      );
    } finally {
      await b.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('serve reports a corrupt state file and moves it aside', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rs-state-it-'));
  const state = join(dir, 'cluster.json');
  try {
    writeFileSync(state, 'not json at all');
    const s = await serve(['--state', state, '--no-controllers']);
    try {
      assert.match(s.output(), /could not be read .* moved it to .*cluster\.json\.corrupt-/);
      assert.ok(readdirSync(dir).some((f) => f.startsWith('cluster.json.corrupt-')));
    } finally {
      await s.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
