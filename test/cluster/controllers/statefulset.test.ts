import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Cluster } from '../../../src/cluster/cluster';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { EVENT, POD, flush, newCluster } from '../helpers';

type Obj = Record<string, unknown>;
const STS = { apiVersion: 'apps/v1', kind: 'StatefulSet' };
const PVC = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' };
const REV = { apiVersion: 'apps/v1', kind: 'ControllerRevision' };

function sts(replicas: number, spec: Obj = {}, image = 'nginx:1.27'): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas,
      serviceName: 'web',
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'c', image }] },
      },
      ...spec,
    },
  };
}

const claimTemplate = {
  metadata: { name: 'www' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
};

function podNames(cluster: Cluster): string[] {
  return cluster
    .list(POD, { namespace: 'default' })
    .items.map((p) => p.metadata.name!)
    .sort();
}

function status(cluster: Cluster): Obj {
  return cluster.get(STS, { namespace: 'default', name: 'web' }).status as Obj;
}

function events(cluster: Cluster): string[] {
  return cluster
    .list(EVENT, { namespace: 'default' })
    .items.filter((e) => (e.involvedObject as Obj).kind === 'StatefulSet')
    .map((e) => `${String(e.reason)}: ${String(e.message)}`);
}

test('OrderedReady makes web-0 first and web-1 only once web-0 is Running and Ready', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 1000 });
  cluster.create(sts(3));
  await flush();
  assert.deepEqual(podNames(cluster), ['web-0']);
  await clock.advance(999);
  assert.deepEqual(podNames(cluster), ['web-0']);
  await clock.advance(1);
  assert.deepEqual(podNames(cluster), ['web-0', 'web-1']);
  await clock.advance(1000);
  await clock.advance(1000);
  assert.deepEqual(podNames(cluster), ['web-0', 'web-1', 'web-2']);
  const s = status(cluster);
  assert.equal(s.replicas, 3);
  assert.equal(s.readyReplicas, 3);
  assert.equal(s.availableReplicas, 3);
  assert.equal(s.currentReplicas, 3);
  assert.equal(s.updatedReplicas, 3);
  assert.equal(s.currentRevision, s.updateRevision);
  assert.equal(s.observedGeneration, 1);
  assert.equal(s.collisionCount, 0);
  assert.deepEqual(events(cluster), [
    'SuccessfulCreate: Create Pod web-0 in StatefulSet web successful',
    'SuccessfulCreate: Create Pod web-1 in StatefulSet web successful',
    'SuccessfulCreate: Create Pod web-2 in StatefulSet web successful',
  ]);
  cluster.close();
});

test('Parallel makes every pod at once', async () => {
  const { cluster } = newCluster({ podReadyDelayMs: 1000 });
  cluster.create(sts(3, { podManagementPolicy: 'Parallel' }));
  await flush();
  assert.deepEqual(podNames(cluster), ['web-0', 'web-1', 'web-2']);
  cluster.close();
});

test('a pod carries its identity: pod-name, pod-index and revision labels, hostname, subdomain, owner', async () => {
  const { cluster } = newCluster();
  const set = cluster.create(sts(1));
  await flush();
  const pod = cluster.get(POD, { namespace: 'default', name: 'web-0' });
  const [rev] = cluster.list(REV, { namespace: 'default' }).items;
  assert.deepEqual(pod.metadata.labels, {
    app: 'web',
    'statefulset.kubernetes.io/pod-name': 'web-0',
    'apps.kubernetes.io/pod-index': '0',
    'controller-revision-hash': rev.metadata.name,
  });
  assert.equal(pod.metadata.generateName, 'web-');
  assert.equal((pod.spec as Obj).hostname, 'web-0');
  assert.equal((pod.spec as Obj).subdomain, 'web');
  assert.equal(pod.metadata.ownerReferences?.[0].uid, set.metadata.uid);
  // The revision: the template as a `$patch: replace`, named by its hash, revision 1.
  assert.equal(rev.revision, 1);
  assert.match(rev.metadata.name!, /^web-[bcdfghjklmnpqrstvwxz2456789]+$/);
  assert.equal(rev.metadata.labels?.['controller.kubernetes.io/hash'], rev.metadata.name!.slice(4));
  const tmpl = ((rev.data as Obj).spec as Obj).template as Obj;
  assert.equal(tmpl.$patch, 'replace');
  cluster.close();
});

test('the ControllerRevision is named by the FNV-1 hash of the bytes Go hashes', async () => {
  // The name kube-controller-manager v1.36.3 gave the revision of this template (differential
  // scenario controller/statefulset-creates-ordinal-pod).
  const { cluster } = newCluster();
  cluster.create({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 's', namespace: 'default' },
    spec: {
      replicas: 1,
      serviceName: 's',
      selector: { matchLabels: { app: 's' } },
      template: {
        metadata: { labels: { app: 's' } },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      },
    },
  });
  await flush();
  const names = cluster.list(REV, { namespace: 'default' }).items.map((r) => r.metadata.name);
  assert.deepEqual(names, ['s-5d46bb5569']);
  cluster.close();
});

test('volumeClaimTemplates become claims TEMPLATE-SET-ORDINAL, mounted by the pod', async () => {
  const { cluster } = newCluster();
  cluster.create(
    sts(2, { volumeClaimTemplates: [claimTemplate], podManagementPolicy: 'Parallel' }),
  );
  await flush();
  const claims = cluster.list(PVC, { namespace: 'default' }).items;
  assert.deepEqual(claims.map((c) => c.metadata.name).sort(), ['www-web-0', 'www-web-1']);
  assert.deepEqual(claims[0].metadata.labels, { app: 'web' });
  // Retain / Retain: the claims outlive the set, so they have no owner.
  assert.equal(claims[0].metadata.ownerReferences, undefined);
  const pod = cluster.get(POD, { namespace: 'default', name: 'web-1' });
  assert.deepEqual((pod.spec as Obj).volumes, [
    { name: 'www', persistentVolumeClaim: { claimName: 'www-web-1' } },
  ]);
  assert.ok(
    events(cluster).includes(
      'SuccessfulCreate: Create Claim www-web-0 Pod web-0 in StatefulSet web success',
    ),
  );
  cluster.close();
});

test('whenDeleted Delete makes the set the claims’ controller; whenScaled Delete hands a scaled-down claim to its pod', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 0 });
  const set = cluster.create(
    sts(2, {
      volumeClaimTemplates: [claimTemplate],
      podManagementPolicy: 'Parallel',
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' },
    }),
  );
  await clock.advance(10);
  const claim = (n: string) => cluster.get(PVC, { namespace: 'default', name: n });
  assert.deepEqual(
    claim('www-web-1').metadata.ownerReferences?.map((r) => [r.kind, r.uid, r.controller]),
    [['StatefulSet', set.metadata.uid, true]],
  );
  const pod1 = cluster.get(POD, { namespace: 'default', name: 'web-1' });
  const scaled = cluster.get(STS, { namespace: 'default', name: 'web' });
  (scaled.spec as Obj).replicas = 1;
  cluster.update(scaled);
  await clock.advance(10);
  assert.deepEqual(podNames(cluster), ['web-0']);
  // The condemned pod owned its claim before it went, so the garbage collector takes the claim.
  await clock.advance(10);
  assert.equal(
    cluster.list(PVC, { namespace: 'default' }).items.some((c) => c.metadata.name === 'www-web-1'),
    false,
  );
  assert.ok(pod1.metadata.uid);
  cluster.close();
});

test('scale down removes the highest ordinal first, the next once it is gone', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 0 });
  cluster.create(sts(3));
  for (let i = 0; i < 5; i++) await clock.advance(10);
  assert.deepEqual(podNames(cluster), ['web-0', 'web-1', 'web-2']);
  const s = cluster.get(STS, { namespace: 'default', name: 'web' });
  (s.spec as Obj).replicas = 1;
  cluster.update(s);
  await clock.advance(10);
  assert.deepEqual(podNames(cluster), ['web-0']);
  const deletes = events(cluster).filter((e) => e.startsWith('SuccessfulDelete'));
  assert.deepEqual(deletes, [
    'SuccessfulDelete: Delete Pod web-2 in StatefulSet web successful',
    'SuccessfulDelete: Delete Pod web-1 in StatefulSet web successful',
  ]);
  cluster.close();
});

test('a rolling update replaces pods from the highest ordinal down to the partition', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 1000 });
  cluster.create(
    sts(3, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } } }),
  );
  for (let i = 0; i < 4; i++) await clock.advance(1000);
  const before = status(cluster).currentRevision as string;
  const s = cluster.get(STS, { namespace: 'default', name: 'web' });
  ((((s.spec as Obj).template as Obj).spec as Obj).containers as Obj[])[0].image = 'nginx:1.28';
  cluster.update(s);
  for (let i = 0; i < 6; i++) await clock.advance(1000);
  const rev = (n: string) =>
    cluster.get(POD, { namespace: 'default', name: n }).metadata.labels?.[
      'controller-revision-hash'
    ];
  const st = status(cluster);
  assert.notEqual(st.updateRevision, before);
  assert.equal(rev('web-2'), st.updateRevision);
  assert.equal(rev('web-1'), st.updateRevision);
  // Below the partition the pod keeps the current revision.
  assert.equal(rev('web-0'), before);
  assert.equal(st.currentRevision, before);
  assert.equal(st.updatedReplicas, 2);
  assert.equal(st.currentReplicas, 1);
  const deletes = events(cluster).filter((e) => e.startsWith('SuccessfulDelete'));
  assert.deepEqual(deletes, [
    'SuccessfulDelete: Delete Pod web-2 in StatefulSet web successful',
    'SuccessfulDelete: Delete Pod web-1 in StatefulSet web successful',
  ]);
  assert.equal(cluster.list(REV, { namespace: 'default' }).items.length, 2);
  cluster.close();
});

test('once every pod is updated the update revision becomes the current one', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 1000 });
  cluster.create(sts(2));
  for (let i = 0; i < 3; i++) await clock.advance(1000);
  const s = cluster.get(STS, { namespace: 'default', name: 'web' });
  ((((s.spec as Obj).template as Obj).spec as Obj).containers as Obj[])[0].image = 'nginx:1.28';
  cluster.update(s);
  for (let i = 0; i < 6; i++) await clock.advance(1000);
  const st = status(cluster);
  assert.equal(st.currentRevision, st.updateRevision);
  assert.equal(st.currentReplicas, 2);
  assert.equal(st.updatedReplicas, 2);
  assert.equal(st.observedGeneration, 2);
  cluster.close();
});

test('the apiserver defaults a StatefulSet as SetDefaults_StatefulSet does', () => {
  const { cluster } = newCluster({ controllers: false });
  const s = cluster.create(sts(1, { volumeClaimTemplates: [claimTemplate] }));
  const spec = s.spec as Obj;
  assert.equal(spec.podManagementPolicy, 'OrderedReady');
  assert.deepEqual(spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
  assert.deepEqual(spec.persistentVolumeClaimRetentionPolicy, {
    whenDeleted: 'Retain',
    whenScaled: 'Retain',
  });
  assert.equal(spec.revisionHistoryLimit, 10);
  const t = (spec.volumeClaimTemplates as Obj[])[0];
  assert.equal((t.spec as Obj).volumeMode, 'Filesystem');
  assert.deepEqual(t.status, { phase: 'Pending' });
  assert.deepEqual(s.status, { replicas: 0, availableReplicas: 0 });
  assert.equal(s.metadata.generation, 1);
  cluster.close();
});

test('a StatefulSet’s claims are provisioned by the default class and become Bound', async () => {
  const { cluster } = newCluster();
  cluster.create(sts(1, { volumeClaimTemplates: [claimTemplate] }));
  await flush();
  const c = cluster.get(PVC, { namespace: 'default', name: 'www-web-0' });
  assert.equal((c.spec as Obj).storageClassName, 'standard');
  assert.equal((c.status as Obj).phase, 'Bound');
  cluster.close();
});

test("a claim template is stored with v1 PersistentVolumeClaim's apiVersion and kind, as apps/v1's conversion writes them", () => {
  const { cluster } = newCluster({ controllers: false });
  const created = cluster.create(sts(0, { volumeClaimTemplates: [claimTemplate] }));
  const [template] = (created.spec as Obj).volumeClaimTemplates as Obj[];
  assert.equal(template.apiVersion, 'v1');
  assert.equal(template.kind, 'PersistentVolumeClaim');
  cluster.close();
});
