/**
 * `serve --faults`: each fault class as real clients meet it — kubectl retries a throttled GET
 * after Retry-After, sees a 409 as a conflict, gives up on a slow answer at its own time-out;
 * @kubernetes/client-node sees the conflict too, and its informer re-watches after a closed
 * watch and relists after a 410.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectl, ok, serve } from './serve';
import type { Served } from './serve';

type K8s = typeof import('@kubernetes/client-node');
let k8s: K8s;
let s: Served;
let kc: InstanceType<K8s['KubeConfig']>;
let faultsDir: string | undefined;

const FAULTS = `faults:
  - name: throttle-kubectl
    match: {verb: get, resource: configmaps, name: throttled, userAgent: kubectl}
    times: 1
    error: {code: 429}
    retryAfterSeconds: 1
  - name: busy
    match: {verb: update, resource: configmaps, name: busy}
    times: 2
    error: {code: 409}
  - name: slow
    match: {verb: get, resource: configmaps, name: slow}
    latencyMs: 3000
  - name: drop
    match: {verb: watch, resource: configmaps, namespace: dropped}
    times: 1
    closeWatch: true
  - name: expire
    match: {verb: watch, resource: configmaps, namespace: expired}
    times: 1
    gone: true
`;

const cm = (name: string, ns = 'default', v = '1') =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, namespace: ${ns}}\ndata: {v: "${v}"}\n`;

before(async () => {
  k8s = await import('@kubernetes/client-node');
  faultsDir = mkdtempSync(join(tmpdir(), 'rs-faults-'));
  const file = join(faultsDir, 'faults.yaml');
  writeFileSync(file, FAULTS);
  s = await serve(['--faults', file, '--log-requests']);
  await ok(s.kubeconfig, ['create', 'namespace', 'dropped']);
  await ok(s.kubeconfig, ['create', 'namespace', 'expired']);
  // `create` only POSTs (apply would GET first, and spend the 429 on kubectl's own retry).
  for (const n of ['throttled', 'busy', 'slow'])
    await ok(s.kubeconfig, ['create', '-f', '-'], cm(n));
  kc = new k8s.KubeConfig();
  kc.loadFromFile(s.kubeconfig);
});
after(async () => {
  await s?.stop();
  if (faultsDir) rmSync(faultsDir, { recursive: true, force: true });
});

test('serve says how many faults it injects', () => {
  assert.match(s.output(), /Injecting 5 faults from /);
});

test('kubectl retries a GET answered 429 after its Retry-After, then gets the object', async () => {
  const r = await kubectl(s.kubeconfig, ['get', 'configmap', 'throttled', '-o', 'name', '-v=6']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /configmap\/throttled/);
  assert.match(r.stderr, /configmaps\/throttled 429 Too Many Requests/);
  assert.match(r.stderr, /configmaps\/throttled 200 OK/);
});

test('kubectl shows an injected 409 as the apiserver conflict; client-node sees it as one too', async () => {
  const r = await kubectl(s.kubeconfig, ['replace', '-f', '-'], cm('busy', 'default', '2'));
  assert.notEqual(r.code, 0);
  assert.match(
    r.stderr,
    /Error from server \(Conflict\).*Operation cannot be fulfilled on configmaps "busy": the object has been modified; please apply your changes to the latest version and try again/,
  );
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const cur = await core.readNamespacedConfigMap({ name: 'busy', namespace: 'default' });
  await assert.rejects(
    core.replaceNamespacedConfigMap({ name: 'busy', namespace: 'default', body: cur }),
    (err: { code?: number; body?: string }) => {
      assert.equal(err.code, 409);
      assert.equal((JSON.parse(err.body ?? '{}') as { reason?: string }).reason, 'Conflict');
      return true;
    },
  );
  // Two hits, then the fault is spent: the write goes through.
  await ok(s.kubeconfig, ['replace', '-f', '-'], cm('busy', 'default', '3'));
});

test('latency is felt: a client time-out shorter than it fails, a longer one does not', async () => {
  const short = await kubectl(s.kubeconfig, [
    'get',
    'configmap',
    'slow',
    '--request-timeout=1s',
    '-o',
    'name',
  ]);
  assert.notEqual(short.code, 0);
  assert.match(short.stderr, /Timeout|deadline exceeded|timed out/i);
  const long = await kubectl(s.kubeconfig, [
    'get',
    'configmap',
    'slow',
    '--request-timeout=30s',
    '-o',
    'name',
  ]);
  assert.equal(long.code, 0, long.stderr);
});

/** Starts a client-node informer on the config maps of `ns`; resolves once it has seen `name`. */
async function informerSees(ns: string, name: string, connects: { n: number }) {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${ns}/configmaps`, () =>
    core.listNamespacedConfigMap({ namespace: ns }),
  );
  informer.on('connect', () => connects.n++);
  const seen = new Promise<void>((resolve, reject) => {
    informer.on('add', (o) => {
      if (o.metadata?.name === name) resolve();
    });
    informer.on('error', reject);
  });
  await informer.start();
  return { informer, seen };
}

const watches = (ns: string) =>
  s
    .output()
    .split('\n')
    .filter(
      (l) => l.startsWith(`GET /api/v1/namespaces/${ns}/configmaps?`) && /watch=true/.test(l),
    );
const lists = (ns: string) =>
  s
    .output()
    .split('\n')
    .filter(
      (l) => l.startsWith(`GET /api/v1/namespaces/${ns}/configmaps`) && !/watch=true/.test(l),
    );

test(
  'client-node informer re-establishes a watch the server closed and keeps receiving events',
  { timeout: 60_000 },
  async () => {
    const connects = { n: 0 };
    const { informer, seen } = await informerSees('dropped', 'after-close', connects);
    try {
      // The first watch is ended by the fault; the informer must come back to see this object.
      while (watches('dropped').length < 2) await new Promise((r) => setTimeout(r, 50));
      await ok(s.kubeconfig, ['apply', '-f', '-'], cm('after-close', 'dropped'));
      await seen;
      assert.ok(watches('dropped').length >= 2);
    } finally {
      await informer.stop();
    }
  },
);

test(
  'client-node informer relists after a watch answered 410 Expired',
  { timeout: 60_000 },
  async () => {
    await ok(s.kubeconfig, ['apply', '-f', '-'], cm('before', 'expired'));
    const connects = { n: 0 };
    const { informer, seen } = await informerSees('expired', 'after-gone', connects);
    try {
      while (lists('expired').length < 2) await new Promise((r) => setTimeout(r, 50));
      await ok(s.kubeconfig, ['apply', '-f', '-'], cm('after-gone', 'expired'));
      await seen;
      // The first list, then the relist the 410 forced (client-node forgets its resourceVersion).
      assert.ok(lists('expired').length >= 2);
      assert.ok(connects.n >= 2);
    } finally {
      await informer.stop();
    }
  },
);

test('serve refuses a bad faults file with file:line and exit 2', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rs-faults-bad-'));
  try {
    const file = join(dir, 'faults.yaml');
    writeFileSync(file, 'faults:\n  - match: {verb: get}\n    error: {code: 302}\n');
    await assert.rejects(
      serve(['--faults', file]),
      /exited with 2: .*faults\.yaml:3: faults\[0\]\.error\.code must be one of 403, 404, 409, 429, 500, 503, 504, got 302/s,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
