import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCluster, withBuiltins } from '../../src/cluster/builtins';
import { Cluster } from '../../src/cluster/cluster';
import { StatusError } from '../../src/cluster/apimachinery/errors';
import type { KubeObject } from '../../src/cluster/apimachinery/types';
import { VirtualClock } from '../../src/util/clock';
import { CM, DEPLOY, NS, RS, flush, newCluster } from './helpers';

const NODE = { apiVersion: 'v1', kind: 'Node' };
const SA = { apiVersion: 'v1', kind: 'ServiceAccount' };

function deployment(name: string): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      },
    },
  };
}

function refusal(f: () => unknown): StatusError | undefined {
  try {
    f();
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  return undefined;
}

test('a bare Cluster runs no controller and no admission plugin', async () => {
  const clock = new VirtualClock(0);
  const cluster = new Cluster({ clock });
  assert.ok(cluster.peek(NS, { name: 'default' }), 'the system namespaces are the API server’s');
  assert.equal(cluster.peek(NODE, { name: 'reconcile-studio-node' }), undefined);
  // No NamespaceLifecycle: a create into a missing namespace is not refused.
  cluster.create({ ...CM, metadata: { name: 'c', namespace: 'nowhere' } });
  cluster.create(deployment('web'));
  await flush(clock);
  assert.equal(cluster.list(RS).items.length, 0);
  assert.equal(cluster.peek(SA, { namespace: 'default', name: 'default' }), undefined);
  cluster.close();
});

test('createCluster registers the node, the admission plugins and every controller', async () => {
  const clock = new VirtualClock(0);
  const cluster = createCluster({ clock });
  assert.ok(cluster.peek(NODE, { name: 'reconcile-studio-node' }));
  const err = refusal(() =>
    cluster.create({ ...CM, metadata: { name: 'c', namespace: 'nowhere' } }),
  );
  assert.equal(err?.code, 404);
  cluster.create(deployment('web'));
  await flush(clock);
  assert.equal(cluster.list(RS).items.length, 1);
  assert.ok(cluster.peek(SA, { namespace: 'default', name: 'default' }));
  cluster.close();
});

test('controllers: false leaves the workload controllers out but keeps the integrity ones', async () => {
  const clock = new VirtualClock(0);
  const cluster = createCluster({ clock, controllers: false });
  cluster.create(deployment('web'));
  await flush(clock);
  assert.equal(cluster.list(RS).items.length, 0);
  // The garbage collector still runs: a ConfigMap owned by the Deployment goes with it.
  const d = cluster.get(DEPLOY, { namespace: 'default', name: 'web' });
  cluster.create({
    ...CM,
    metadata: {
      name: 'owned',
      namespace: 'default',
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: d.metadata.uid! },
      ],
    },
  });
  cluster.delete(DEPLOY, { namespace: 'default', name: 'web' });
  await flush(clock);
  assert.equal(cluster.peek(CM, { namespace: 'default', name: 'owned' }), undefined);
  cluster.close();
});

test("controllerManager: false is envtest's apiserver alone: no GC, namespaces stay Terminating", async () => {
  const clock = new VirtualClock(0);
  const cluster = createCluster({ clock, controllers: false, controllerManager: false });
  cluster.create(deployment('web'));
  const d = cluster.get(DEPLOY, { namespace: 'default', name: 'web' });
  cluster.create({
    ...CM,
    metadata: {
      name: 'owned',
      namespace: 'default',
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: d.metadata.uid! },
      ],
    },
  });
  cluster.delete(DEPLOY, { namespace: 'default', name: 'web' });
  cluster.create({ ...NS, metadata: { name: 'gone' } });
  cluster.delete(NS, { name: 'gone' });
  await flush(clock);
  await clock.advance(60_000);
  await flush(clock);
  assert.ok(cluster.peek(CM, { namespace: 'default', name: 'owned' }), 'no garbage collector');
  assert.equal(
    (cluster.get(NS, { name: 'gone' }).status as { phase?: string } | undefined)?.phase,
    'Terminating',
  );
  assert.equal(cluster.peek(SA, { namespace: 'default', name: 'default' }), undefined);
  assert.equal(cluster.peek(NODE, { name: 'reconcile-studio-node' }), undefined);
  // The apiserver's own: the kubernetes Service and the admission plugins.
  assert.ok(
    cluster.peek(
      { apiVersion: 'v1', kind: 'Service' },
      { namespace: 'default', name: 'kubernetes' },
    ),
  );
  cluster.close();
});

test('withBuiltins wires a cluster built elsewhere, and close() stops its controllers', async () => {
  const clock = new VirtualClock(0);
  const cluster = withBuiltins(new Cluster({ clock }));
  cluster.close();
  cluster.create(deployment('web'));
  await flush(clock);
  assert.equal(cluster.list(RS).items.length, 0);
});

test('the system namespaces are created as kube-apiserver creates them, under its own name', () => {
  const { cluster } = newCluster({ controllers: false });
  for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
    const ns = cluster.get({ apiVersion: 'v1', kind: 'Namespace' }, { name });
    assert.equal(ns.metadata.managedFields?.[0]?.manager, 'kube-apiserver', name);
    assert.equal(ns.metadata.labels?.['kubernetes.io/metadata.name'], name);
  }
  cluster.close();
});
