import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { WIDGET_CRD, ok, serve } from './serve';
import type { Served } from './serve';

// @kubernetes/client-node 1.x is an ES module.
type K8s = typeof import('@kubernetes/client-node');
let k8s: K8s;
let s: Served;
let kc: InstanceType<K8s['KubeConfig']>;

before(async () => {
  k8s = await import('@kubernetes/client-node');
  s = await serve();
  await ok(s.kubeconfig, ['apply', '-f', '-'], WIDGET_CRD);
  kc = new k8s.KubeConfig();
  kc.loadFromFile(s.kubeconfig);
});
after(async () => {
  await s?.stop();
});

test('client-node lists namespaces with the written kubeconfig', async () => {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const list = await core.listNamespace();
  assert.ok(list.items.some((n) => n.metadata?.name === 'default'));
});

test('client-node creates, reads and patches a custom resource', async () => {
  const api = kc.makeApiClient(k8s.CustomObjectsApi);
  await api.createNamespacedCustomObject({
    group: 'example.com',
    version: 'v1',
    namespace: 'default',
    plural: 'widgets',
    body: {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'cn1' },
      spec: { size: 1 },
    },
  });
  const got = (await api.getNamespacedCustomObject({
    group: 'example.com',
    version: 'v1',
    namespace: 'default',
    plural: 'widgets',
    name: 'cn1',
  })) as { spec: { size: number; color: string } };
  assert.deepEqual(got.spec, { size: 1, color: 'red' });
  const patched = (await api.patchNamespacedCustomObject(
    {
      group: 'example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      name: 'cn1',
      body: { spec: { size: 4 } },
    },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  )) as { spec: { size: number }; metadata: { generation: number } };
  assert.equal(patched.spec.size, 4);
  assert.equal(patched.metadata.generation, 2);
});

test('client-node sees API errors with the apiserver status code and message', async () => {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  await assert.rejects(
    () => core.readNamespacedConfigMap({ name: 'missing', namespace: 'default' }),
    (e: unknown) =>
      (e as { code?: number }).code === 404 &&
      /configmaps \\"missing\\" not found|configmaps "missing" not found/.test(
        String((e as { body?: unknown }).body),
      ),
  );
});

test('client-node watch delivers ADDED and MODIFIED events in order', async () => {
  const watch = new k8s.Watch(kc);
  const seen: string[] = [];
  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r));
  const req = await watch.watch(
    '/api/v1/namespaces/default/configmaps',
    {},
    (type: string, obj: { metadata?: { name?: string }; data?: Record<string, string> }) => {
      if (obj.metadata?.name !== 'watched') return;
      seen.push(`${type}:${obj.data?.v ?? ''}`);
      if (seen.length === 3) done();
    },
    () => {},
  );
  const core = kc.makeApiClient(k8s.CoreV1Api);
  await core.createNamespacedConfigMap({
    namespace: 'default',
    body: { metadata: { name: 'watched' }, data: { v: '1' } },
  });
  await core.replaceNamespacedConfigMap({
    name: 'watched',
    namespace: 'default',
    body: { metadata: { name: 'watched' }, data: { v: '2' } },
  });
  await core.deleteNamespacedConfigMap({ name: 'watched', namespace: 'default' });
  await finished;
  req.abort();
  assert.deepEqual(seen, ['ADDED:1', 'MODIFIED:2', 'DELETED:2']);
});

test('a client-node informer lists then follows changes', async () => {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  await core.createNamespacedConfigMap({
    namespace: 'default',
    body: { metadata: { name: 'pre', labels: { inf: 'yes' } } },
  });
  const informer = k8s.makeInformer(
    kc,
    '/api/v1/namespaces/default/configmaps',
    () => core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'inf=yes' }),
    'inf=yes',
  );
  const added: string[] = [];
  let resolveSecond!: () => void;
  const second = new Promise<void>((r) => (resolveSecond = r));
  informer.on('add', (o: { metadata?: { name?: string } }) => {
    added.push(o.metadata!.name!);
    if (added.includes('post')) resolveSecond();
  });
  await informer.start();
  await core.createNamespacedConfigMap({
    namespace: 'default',
    body: { metadata: { name: 'post', labels: { inf: 'yes' } } },
  });
  await second;
  await informer.stop();
  assert.deepEqual(added.sort(), ['post', 'pre']);
  assert.deepEqual(
    (informer as unknown as { list(): Array<{ metadata?: { name?: string } }> })
      .list()
      .map((o) => o.metadata!.name)
      .sort(),
    ['post', 'pre'],
  );
});

test('16 concurrent writers over HTTPS: one success per resourceVersion, no lost update, every change watched once in order', async () => {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  await core.createNamespacedConfigMap({
    namespace: 'default',
    body: { metadata: { name: 'counter' }, data: { n: '0' } },
  });
  const seen: number[] = [];
  let allSeen!: () => void;
  const watched = new Promise<void>((r) => (allSeen = r));
  const req = await new k8s.Watch(kc).watch(
    '/api/v1/namespaces/default/configmaps',
    { fieldSelector: 'metadata.name=counter' },
    (type: string, obj: { data?: Record<string, string> }) => {
      if (type !== 'MODIFIED') return;
      seen.push(Number(obj.data!.n));
      if (seen.length === 16) allSeen();
    },
    () => {},
  );
  const winners = new Map<string, number>();
  const writer = async () => {
    for (let done = 0; done < 1;) {
      const cur = await core.readNamespacedConfigMap({ name: 'counter', namespace: 'default' });
      cur.data = { n: String(Number(cur.data!.n) + 1) };
      try {
        await core.replaceNamespacedConfigMap({ name: 'counter', namespace: 'default', body: cur });
        const rv = cur.metadata!.resourceVersion!;
        winners.set(rv, (winners.get(rv) ?? 0) + 1);
        done++;
      } catch (e) {
        assert.equal((e as { code?: number }).code, 409);
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, writer));
  const final = await core.readNamespacedConfigMap({ name: 'counter', namespace: 'default' });
  assert.equal(final.data!.n, '16');
  assert.ok([...winners.values()].every((n) => n === 1));
  await watched;
  req.abort();
  assert.deepEqual(
    seen,
    Array.from({ length: 16 }, (_, i) => i + 1),
  );
});
