import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultKubeconfig, listContexts, loadUpstream } from '../../src/proxy/upstream';

const KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
- {name: kind, cluster: {server: "https://127.0.0.1:6443", insecure-skip-tls-verify: true}}
- {name: dev, cluster: {server: "https://dev.example.com/prefix"}}
users:
- {name: me, user: {token: abc}}
contexts:
- {name: kind-dev, context: {cluster: kind, user: me, namespace: team}}
- {name: shared, context: {cluster: dev, user: me}}
current-context: kind-dev
`;

test('the default kubeconfig is the first file of $KUBECONFIG, else ~/.kube/config', () => {
  assert.equal(defaultKubeconfig({ KUBECONFIG: '/a/one:/a/two' }), '/a/one');
  assert.match(defaultKubeconfig({}), /\.kube[/\\]config$/);
});

test('a kubeconfig’s contexts are listed with their servers and which is current', () => {
  const dir = mkdtempSync(join(tmpdir(), 'upstream-'));
  try {
    const f = join(dir, 'config');
    writeFileSync(f, KUBECONFIG);
    assert.deepEqual(listContexts(f), [
      { name: 'kind-dev', server: 'https://127.0.0.1:6443', current: true },
      { name: 'shared', server: 'https://dev.example.com/prefix', current: false },
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an upstream is the named context’s cluster and namespace, the current one by default', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'upstream-'));
  try {
    const f = join(dir, 'config');
    writeFileSync(f, KUBECONFIG);
    const cur = await loadUpstream({ kubeconfig: f });
    assert.deepEqual(
      [cur.context, cur.namespace, cur.server.href],
      ['kind-dev', 'team', 'https://127.0.0.1:6443/'],
    );
    cur.close();
    const other = await loadUpstream({ kubeconfig: f, context: 'shared' });
    assert.deepEqual(
      [other.context, other.namespace, other.server.pathname],
      ['shared', 'default', '/prefix'],
    );
    other.close();
    await assert.rejects(loadUpstream({ kubeconfig: f, context: 'prod' }), /has no context "prod"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
