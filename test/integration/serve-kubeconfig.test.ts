import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { kubectl, ok, serve } from './serve';

const PROD = `# production: keep me
apiVersion: v1
kind: Config
clusters:
- name: prod
  cluster: {server: 'https://prod.invalid'}
users:
- name: prod
  user: {token: prod-token}
contexts:
- name: prod
  context: {cluster: prod, user: prod}
current-context: prod
`;

test('serve --kubeconfig merges into an existing kubeconfig (0600) and takes its context out again on exit', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rs-kc-it-'));
  const file = join(dir, 'config');
  try {
    writeFileSync(file, PROD, { mode: 0o644 });
    const s = await serve(['--no-controllers', '--kubeconfig', file]);
    try {
      assert.equal(statSync(file).mode & 0o777, 0o600);
      const during = YAML.parse(readFileSync(file, 'utf8')) as {
        contexts: Array<{ name: string }>;
        'current-context': string;
      };
      assert.deepEqual(
        during.contexts.map((c) => c.name),
        ['prod', 'reconcile-studio'],
      );
      assert.equal(during['current-context'], 'prod');
      for (let i = 0; i < 50 && !s.output().includes('Try:'); i++)
        await new Promise((r) => setTimeout(r, 100));
      assert.match(s.output(), /left its current-context \("prod"\) as it was/);
      assert.match(
        await ok(file, [
          '--context',
          'reconcile-studio',
          'get',
          'namespace',
          'default',
          '-o',
          'name',
        ]),
        /namespace\/default/,
      );
    } finally {
      await s.stop();
    }
    assert.deepEqual(YAML.parse(readFileSync(file, 'utf8')), YAML.parse(PROD));
    assert.match(readFileSync(file, 'utf8'), /^# production: keep me/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('serve --kubeconfig refuses a kubeconfig kubectl is changing (its FILE.lock), naming the lock, and changes nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rs-kc-it-'));
  const file = join(dir, 'config');
  const lock = `${file}.lock`;
  try {
    writeFileSync(file, PROD);
    writeFileSync(lock, '');
    // kubectl's own writers take the same lock: it refuses too, with the same words.
    const k = await kubectl(file, ['config', 'set-context', 'other', '--cluster', 'prod']);
    assert.notEqual(k.code, 0);
    assert.match(k.stderr, new RegExp(`open ${lock}: file exists`));
    await assert.rejects(
      serve(['--no-controllers', '--kubeconfig', file]),
      (err: Error) =>
        /serve exited with 1/.test(err.message) &&
        err.message.includes(`cannot write the kubeconfig: open ${lock}: file exists`),
    );
    assert.equal(readFileSync(file, 'utf8'), PROD);
    assert.ok(existsSync(lock), 'the other writer’s lock stays');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
