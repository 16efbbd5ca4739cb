import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Cluster } from '../../../src/cluster/cluster';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { EVENT, POD, flush, newCluster } from '../helpers';

type Obj = Record<string, unknown>;
const DS = { apiVersion: 'apps/v1', kind: 'DaemonSet' };
const NODE = { apiVersion: 'v1', kind: 'Node' };

function ds(spec: Obj = {}, image = 'fluentd:1'): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'logs', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'logs' } },
      template: {
        metadata: { labels: { app: 'logs' } },
        spec: { containers: [{ name: 'c', image }] },
      },
      ...spec,
    },
  };
}

function node(name: string, extra: Obj = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { disk: 'ssd' } }, ...extra };
}

function pods(cluster: Cluster): KubeObject[] {
  return cluster.list(POD, { namespace: 'default' }).items;
}

function status(cluster: Cluster): Obj {
  return cluster.get(DS, { namespace: 'default', name: 'logs' }).status as Obj;
}

const nodeOf = (p: KubeObject) => (p.spec as Obj).nodeName;

test('a DaemonSet runs one pod on the node, pinned by the node affinity the controller writes', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 1000 });
  cluster.create(ds());
  await flush();
  const [pod] = pods(cluster);
  assert.equal(pods(cluster).length, 1);
  assert.deepEqual((pod.spec as Obj).affinity, {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          {
            matchFields: [
              { key: 'metadata.name', operator: 'In', values: ['reconcile-studio-node'] },
            ],
          },
        ],
      },
    },
  });
  const tolerated = ((pod.spec as Obj).tolerations as Obj[]).map((t) => `${t.key}:${t.effect}`);
  for (const t of [
    'node.kubernetes.io/not-ready:NoExecute',
    'node.kubernetes.io/unreachable:NoExecute',
    'node.kubernetes.io/disk-pressure:NoSchedule',
    'node.kubernetes.io/memory-pressure:NoSchedule',
    'node.kubernetes.io/pid-pressure:NoSchedule',
    'node.kubernetes.io/unschedulable:NoSchedule',
  ])
    assert.ok(tolerated.includes(t), t);
  assert.equal(pod.metadata.labels?.['pod-template-generation'], '1');
  assert.ok(pod.metadata.labels?.['controller-revision-hash']);
  assert.equal(pod.metadata.generateName, 'logs-');
  await clock.advance(1000);
  const s = status(cluster);
  assert.equal(s.desiredNumberScheduled, 1);
  assert.equal(s.currentNumberScheduled, 1);
  assert.equal(s.numberReady, 1);
  assert.equal(s.updatedNumberScheduled, 1);
  assert.equal(s.numberAvailable, 1);
  assert.equal(s.numberUnavailable, undefined);
  assert.equal(s.numberMisscheduled, 0);
  assert.equal(s.observedGeneration, 1);
  cluster.close();
});

test('a node added gets its own pod, bound to it; a node the selector leaves out gets none', async () => {
  const { cluster } = newCluster();
  cluster.create(ds({}));
  cluster.create(node('n2'));
  cluster.create(node('n3', { metadata: { name: 'n3', labels: { disk: 'hdd' } } }));
  await flush();
  assert.deepEqual(pods(cluster).map(nodeOf).sort(), ['n2', 'n3', 'reconcile-studio-node']);
  const sel = cluster.get(DS, { namespace: 'default', name: 'logs' });
  (((sel.spec as Obj).template as Obj).spec as Obj).nodeSelector = { disk: 'ssd' };
  cluster.update(sel);
  for (let i = 0; i < 5; i++) await flush();
  assert.deepEqual(pods(cluster).map(nodeOf).sort(), ['n2']);
  assert.equal(status(cluster).desiredNumberScheduled, 1);
  cluster.close();
});

test('a tainted node runs no daemon pod unless the template tolerates the taint', async () => {
  const { cluster } = newCluster();
  cluster.create(
    node('t', { spec: { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] } }),
  );
  cluster.create(ds());
  await flush();
  assert.deepEqual(pods(cluster).map(nodeOf), ['reconcile-studio-node']);
  cluster.close();
});

test('a template change rolls the pods within maxUnavailable and bumps the template generation', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 1000 });
  cluster.create(node('n2'));
  cluster.create(ds());
  await clock.advance(1000);
  const d = cluster.get(DS, { namespace: 'default', name: 'logs' });
  ((((d.spec as Obj).template as Obj).spec as Obj).containers as Obj[])[0].image = 'fluentd:2';
  const updated = cluster.update(d);
  assert.equal(updated.metadata.annotations?.['deprecated.daemonset.template.generation'], '2');
  await flush();
  // maxUnavailable 1: one old pod is replaced at a time.
  const images = () =>
    pods(cluster)
      .map((p) => ((p.spec as Obj).containers as Obj[])[0].image as string)
      .sort();
  assert.deepEqual(images(), ['fluentd:1', 'fluentd:2']);
  await clock.advance(1000);
  await clock.advance(1000);
  assert.deepEqual(images(), ['fluentd:2', 'fluentd:2']);
  const s = status(cluster);
  assert.equal(s.updatedNumberScheduled, 2);
  assert.equal(s.numberAvailable, 2);
  const reasons = cluster
    .list(EVENT, { namespace: 'default' })
    .items.filter((e) => (e.involvedObject as Obj).kind === 'DaemonSet')
    .map((e) => e.reason);
  assert.ok(reasons.includes('SuccessfulDelete'));
  cluster.close();
});

test('a DaemonSet is defaulted as SetDefaults_DaemonSet does', () => {
  const { cluster } = newCluster({ controllers: false });
  const d = cluster.create(ds());
  assert.deepEqual((d.spec as Obj).updateStrategy, {
    type: 'RollingUpdate',
    rollingUpdate: { maxUnavailable: 1, maxSurge: 0 },
  });
  assert.equal((d.spec as Obj).revisionHistoryLimit, 10);
  assert.deepEqual(d.status, {
    currentNumberScheduled: 0,
    numberMisscheduled: 0,
    desiredNumberScheduled: 0,
    numberReady: 0,
  });
  assert.equal(d.metadata.annotations?.['deprecated.daemonset.template.generation'], '1');
  assert.equal(cluster.list(NODE).items.length, 0);
  cluster.close();
});
