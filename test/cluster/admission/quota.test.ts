import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isForbidden } from '../../../src/cluster/apimachinery/errors';
import type { StatusError } from '../../../src/cluster/apimachinery/errors';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { EVENT, POD, QUOTA, RS, flush, newCluster } from '../helpers';

type Obj = Record<string, unknown>;

function pod(name: string, resources?: Obj): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'app', image: 'nginx:1', ...(resources ? { resources } : {}) }] },
  };
}

function quota(hard: Record<string, string>, name = 'compute'): KubeObject {
  return { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard } };
}

test('a create beyond the quota is 403 Forbidden with the apiserver message', () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(quota({ pods: '2' }));
  cluster.create(pod('a'));
  cluster.create(pod('b'));
  assert.throws(
    () => cluster.create(pod('x')),
    (e: unknown) =>
      isForbidden(e) &&
      (e as StatusError).message ===
        'pods "x" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=2, limited: pods=2',
  );
  cluster.close();
});

test('count/<resource>.<group> quotas limit custom and built-in kinds', () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(quota({ 'count/configmaps': '1' }, 'objects'));
  cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
  assert.throws(
    () => cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } }),
    /exceeded quota: objects, requested: count\/configmaps=1, used: count\/configmaps=1, limited: count\/configmaps=1/,
  );
  cluster.close();
});

test('cpu and memory quotas need every container to declare them', () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(quota({ 'limits.cpu': '1', 'requests.memory': '1Gi' }));
  assert.throws(
    () => cluster.create(pod('x')),
    /pods "x" is forbidden: failed quota: compute: must specify limits.cpu for: app; requests.memory for: app/,
  );
  cluster.create(pod('ok', { limits: { cpu: '600m' }, requests: { memory: '512Mi' } }));
  assert.throws(
    () => cluster.create(pod('big', { limits: { cpu: '500m' }, requests: { memory: '256Mi' } })),
    /exceeded quota: compute, requested: limits.cpu=500m, used: limits.cpu=600m, limited: limits.cpu=1/,
  );
  cluster.close();
});

test('the quota controller keeps status.used current', async () => {
  const { cluster, clock } = newCluster({ controllers: false });
  cluster.create(quota({ pods: '5', 'count/configmaps': '3' }));
  cluster.create(pod('a'));
  await flush(clock);
  let st = cluster.get(QUOTA, { namespace: 'default', name: 'compute' }).status as {
    hard: Obj;
    used: Obj;
  };
  assert.deepEqual(st.hard, { pods: '5', 'count/configmaps': '3' });
  assert.deepEqual(st.used, { pods: '1', 'count/configmaps': '0' });
  cluster.delete(POD, { namespace: 'default', name: 'a' });
  await flush(clock);
  st = cluster.get(QUOTA, { namespace: 'default', name: 'compute' }).status as {
    hard: Obj;
    used: Obj;
  };
  assert.equal(st.used.pods, '0');
  cluster.close();
});

test('a ReplicaSet refused by quota records FailedCreate with the quota message and a ReplicaFailure condition', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 10 });
  cluster.create(quota({ pods: '3' }));
  const dep = (name: string, replicas: number): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: 'nginx:1' }] },
      },
    },
  });
  cluster.create(dep('shop', 3));
  await flush(clock);
  cluster.create(dep('blog', 1));
  await flush(clock);
  await clock.advance(100);
  await flush(clock);
  const blogRs = cluster.list(RS, { namespace: 'default', labelSelector: 'app=blog' }).items[0];
  const cond = (
    (blogRs.status as Obj).conditions as Array<{ type: string; reason: string; message: string }>
  ).find((c) => c.type === 'ReplicaFailure')!;
  assert.equal(cond.reason, 'FailedCreate');
  assert.match(
    cond.message,
    /^pods "blog-[a-z0-9]+-[a-z0-9]{5}" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=3, limited: pods=3$/,
  );
  const failed = cluster.list(EVENT, {
    namespace: 'default',
    fieldSelector: 'reason=FailedCreate',
  }).items;
  assert.ok(failed.length >= 1 && failed.length <= 11, 'similar failures are folded after ten');
  for (const e of failed)
    assert.match(
      String(e.message),
      /^(\(combined from similar events\): )?Error creating: pods "blog-.*" is forbidden: exceeded quota: compute/,
    );
  assert.ok(failed.reduce((n, e) => n + (e.count as number), 0) >= 2);
  // Freeing quota lets the ReplicaSet through.
  const shop = cluster.get(
    { apiVersion: 'apps/v1', kind: 'Deployment' },
    { namespace: 'default', name: 'shop' },
  );
  (shop.spec as { replicas: number }).replicas = 2;
  cluster.update(shop);
  await flush(clock);
  await clock.advance(10_000);
  await flush(clock);
  assert.equal(
    cluster.list(POD, { namespace: 'default', labelSelector: 'app=blog' }).items.length,
    1,
  );
  cluster.close();
});
