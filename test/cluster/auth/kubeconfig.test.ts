import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { installKubeconfig, mergeKubeconfig } from '../../../src/cluster/auth/kubeconfig';

const PARAMS = { server: 'https://127.0.0.1:6443', caPem: 'CA', token: 'secret-token' };

const PROD = `# my clusters: do not lose this comment
apiVersion: v1
kind: Config
clusters:
- name: prod
  cluster:
    server: https://prod.example.com
    extensions: [{name: x, extension: {keep: me}}]
users:
- name: prod-admin
  user: {token: prod-token}
contexts:
- name: prod
  context: {cluster: prod, user: prod-admin}
current-context: prod
preferences: {colors: true}
x-unknown-field: stays
`;

function withDir(fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'rs-kubeconfig-'));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('merging into an existing kubeconfig adds a context and keeps everything else, current-context included', () => {
  const { text, undo } = mergeKubeconfig(PROD, PARAMS);
  const cfg = YAML.parse(text) as Record<string, Array<{ name: string }> | string | object>;
  assert.match(text, /^# my clusters: do not lose this comment/);
  assert.deepEqual(
    (cfg.contexts as Array<{ name: string }>).map((c) => c.name),
    ['prod', 'reconcile-studio'],
  );
  assert.deepEqual(
    (cfg.users as Array<{ name: string }>).map((c) => c.name),
    ['prod-admin', 'reconcile-studio'],
  );
  assert.equal(cfg['current-context'], 'prod');
  assert.equal(cfg['x-unknown-field'], 'stays');
  assert.deepEqual(
    (cfg.clusters as Array<{ cluster: { extensions?: unknown } }>)[0].cluster.extensions,
    [{ name: 'x', extension: { keep: 'me' } }],
  );
  assert.equal(undo.setCurrentContext, false);
});

test('a kubeconfig without a current-context gets ours', () => {
  const { text, undo } = mergeKubeconfig(PROD.replace('current-context: prod\n', ''), PARAMS);
  assert.equal(
    (YAML.parse(text) as { 'current-context': string })['current-context'],
    'reconcile-studio',
  );
  assert.equal(undo.setCurrentContext, true);
});

test('a file that is not a kubeconfig is refused, not overwritten', () => {
  assert.throws(
    () => mergeKubeconfig('clusters: [unclosed', PARAMS, 'f'),
    /^Error: f is not a kubeconfig/,
  );
  assert.throws(
    () => mergeKubeconfig('- a list', PARAMS, 'f'),
    /f is not a kubeconfig: not a YAML mapping/,
  );
  assert.throws(() => mergeKubeconfig('clusters: 5', PARAMS, 'f'), /clusters is not a list/);
});

test('install writes 0600 and remove takes out exactly what was added, restoring a replaced entry of the same name', () => {
  withDir((dir) => {
    const file = join(dir, 'config');
    const stale = PROD.replace(
      'current-context: prod',
      'current-context: prod\n# a leftover of an earlier run:\n',
    ).replace(
      'contexts:\n',
      'contexts:\n- name: reconcile-studio\n  context: {cluster: old, user: old}\n',
    );
    writeFileSync(file, stale, { mode: 0o644 });
    const before = YAML.parse(stale) as unknown;
    const k = installKubeconfig(file, PARAMS);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(k.keptCurrentContext, 'prod');
    const during = YAML.parse(readFileSync(file, 'utf8')) as {
      contexts: Array<{ name: string; context: { cluster: string } }>;
      users: Array<{ name: string; user: { token?: string } }>;
    };
    assert.equal(
      during.contexts.find((c) => c.name === 'reconcile-studio')?.context.cluster,
      'reconcile-studio',
    );
    assert.equal(
      during.users.find((u) => u.name === 'reconcile-studio')?.user.token,
      'secret-token',
    );
    // Another tool edits the file meanwhile: that edit survives the removal.
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('current-context: prod', 'current-context: staging'),
    );
    k.remove();
    const after = YAML.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    assert.deepEqual(after, { ...(before as object), 'current-context': 'staging' });
    assert.match(readFileSync(file, 'utf8'), /# my clusters: do not lose this comment/);
    assert.equal(statSync(file).mode & 0o777, 0o600);
  });
});

test('a stricter mode is kept, a symlinked kubeconfig is written through, and a created file is deleted on remove', () => {
  withDir((dir) => {
    const real = join(dir, 'real-config');
    writeFileSync(real, PROD);
    chmodSync(real, 0o400);
    const link = join(dir, 'config');
    symlinkSync(real, link);
    const k = installKubeconfig(link, PARAMS);
    assert.equal(k.file, real);
    assert.equal(statSync(real).mode & 0o777, 0o400);
    k.remove();
    assert.deepEqual(YAML.parse(readFileSync(link, 'utf8')), YAML.parse(PROD));

    const fresh = join(dir, 'new-config');
    const n = installKubeconfig(fresh, PARAMS);
    assert.equal(n.keptCurrentContext, undefined);
    assert.equal(statSync(fresh).mode & 0o777, 0o600);
    n.remove();
    assert.ok(!existsSync(fresh));
  });
});

test('a kubeconfig locked by another writer (clientcmd’s FILE.lock) is left untouched, its lock too', () => {
  withDir((dir) => {
    const file = join(dir, 'config');
    writeFileSync(file, PROD);
    const lock = `${file}.lock`;
    writeFileSync(lock, '');
    assert.throws(
      () => installKubeconfig(file, PARAMS),
      (err: Error) => err.message.startsWith(`open ${lock}: file exists (`),
    );
    assert.equal(readFileSync(file, 'utf8'), PROD);
    assert.ok(existsSync(lock), 'the other writer’s lock stays');
  });
});

test('install and remove take the lock and leave none behind, on success and on failure', () => {
  withDir((dir) => {
    const file = join(dir, 'config');
    const lock = `${file}.lock`;
    writeFileSync(file, PROD);
    const k = installKubeconfig(file, PARAMS);
    assert.ok(!existsSync(lock));
    // Removal while kubectl config holds the lock: refused, nothing changed, and retried later.
    writeFileSync(lock, '');
    const during = readFileSync(file, 'utf8');
    assert.throws(() => k.remove(), new RegExp(`^Error: open ${lock}: file exists`));
    assert.equal(readFileSync(file, 'utf8'), during);
    rmSync(lock);
    k.remove();
    assert.deepEqual(YAML.parse(readFileSync(file, 'utf8')), YAML.parse(PROD));
    assert.ok(!existsSync(lock));

    // A failure inside the lock (the file is no kubeconfig) releases it.
    const broken = join(dir, 'broken');
    writeFileSync(broken, 'clusters: [unclosed');
    assert.throws(() => installKubeconfig(broken, PARAMS), /is not a kubeconfig/);
    assert.ok(!existsSync(`${broken}.lock`));
    assert.equal(readFileSync(broken, 'utf8'), 'clusters: [unclosed');
  });
});

test('the lock of a symlinked kubeconfig is named after the link, as kubectl names it', () => {
  withDir((dir) => {
    const real = join(dir, 'real-config');
    writeFileSync(real, PROD);
    const link = join(dir, 'config');
    symlinkSync(real, link);
    writeFileSync(`${link}.lock`, '');
    assert.throws(() => installKubeconfig(link, PARAMS), /config\.lock: file exists/);
    assert.equal(readFileSync(real, 'utf8'), PROD);
  });
});
