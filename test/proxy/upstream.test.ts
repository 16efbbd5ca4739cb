import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type ClientRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
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

test('credentials from an exec plugin are asked for per request, static ones are sent as given', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'upstream-'));
  const seen: Array<string | undefined> = [];
  const server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const port = (server.address() as AddressInfo).port;
    // The plugin counts its runs: client-node's ExecAuth caches a token until it expires.
    const plugin = join(dir, 'plugin.js');
    writeFileSync(
      plugin,
      `const fs = require('node:fs');
const f = ${JSON.stringify(join(dir, 'runs'))};
const n = (fs.existsSync(f) ? Number(fs.readFileSync(f, 'utf8')) : 0) + 1;
fs.writeFileSync(f, String(n));
process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential',
  status: { token: 'from-exec-' + n, expirationTimestamp: new Date(Date.now() + 3600e3).toISOString() } }));
`,
    );
    const f = join(dir, 'config');
    writeFileSync(
      f,
      `apiVersion: v1
kind: Config
clusters:
- {name: c, cluster: {server: "http://127.0.0.1:${port}", insecure-skip-tls-verify: true}}
users:
- name: exec
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(plugin)}], interactiveMode: Never}
- {name: static, user: {token: abc, as: someone}}
contexts:
- {name: exec, context: {cluster: c, user: exec}}
- {name: static, context: {cluster: c, user: static}}
current-context: exec
`,
    );
    const sent = (req: ClientRequest) =>
      new Promise<void>((resolve, reject) => {
        req.on('response', (a) => a.resume().on('end', () => resolve()));
        req.on('error', reject);
        req.end();
      });
    const get = async (u: Awaited<ReturnType<typeof loadUpstream>>) =>
      sent(await u.request('GET', '/version', {}));
    const exec = await loadUpstream({ kubeconfig: f });
    await get(exec);
    await get(exec);
    exec.close();
    // Asked for per request (the plugin's cached answer), run once.
    assert.deepEqual(seen, ['Bearer from-exec-1', 'Bearer from-exec-1']);
    const fixed = await loadUpstream({ kubeconfig: f, context: 'static' });
    const req = fixed.request('GET', '/version', {});
    // Static credentials: the request is opened at once, not after a promise.
    assert.ok(!(req instanceof Promise));
    await sent(req);
    fixed.close();
    assert.equal(seen[2], 'Bearer abc');
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
