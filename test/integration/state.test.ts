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

test('serve --state drops a torn last log record with a message, and refuses to start on a damaged one before the end', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rs-state-it-'));
  const state = join(dir, 'cluster.json');
  const rec = (rv: number, name: string) =>
    JSON.stringify({
      rv,
      s: '/configmaps',
      k: `default/${name}`,
      o: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: 'default', resourceVersion: String(rv) },
      },
    }) + '\n';
  try {
    writeFileSync(`${state}.wal`, rec(1000, 'logged') + '{"rv":1001,"s":"/confi');
    const s = await serve(['--state', state, '--no-controllers']);
    try {
      assert.match(
        s.output(),
        /discarded a partial last record of .*cluster\.json\.wal \(22 bytes at byte \d+\)/,
      );
      assert.equal(
        await ok(s.kubeconfig, ['get', 'configmap', 'logged', '-o', 'name']),
        'configmap/logged\n',
      );
    } finally {
      await s.stop();
    }
    writeFileSync(
      `${state}.wal`,
      rec(2000, 'a') + '{"rv":2001,"s":"/configmaps",#}\n' + rec(2002, 'b'),
    );
    await assert.rejects(
      serve(['--state', state, '--no-controllers']),
      /serve exited with 1: .*cluster\.json\.wal: corrupt write-ahead log record at byte \d+: .*refusing to start/s,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('serve --state with the same --manifests keeps the restored (newer) object and says so', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rs-state-it-'));
  const state = join(dir, 'cluster.json');
  const manifest = join(dir, 'cm.yaml');
  try {
    writeFileSync(
      manifest,
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: default}\ndata: {mode: initial}\n',
    );
    const a = await serve(['--state', state, '--no-controllers', '--manifests', manifest]);
    await ok(a.kubeconfig, ['patch', 'configmap', 'settings', '-p', '{"data":{"mode":"changed"}}']);
    await a.stop();
    const b = await serve(['--state', state, '--no-controllers', '--manifests', manifest]);
    try {
      assert.equal(
        await ok(b.kubeconfig, ['get', 'configmap', 'settings', '-o', 'jsonpath={.data.mode}']),
        'changed',
      );
      assert.match(
        b.output(),
        /Kept 1 objects as restored from .* rather than re-applying them from the manifests .*: ConfigMap\/default\/settings/,
      );
    } finally {
      await b.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
