import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Cluster } from '../../../src/cluster/cluster';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { POD, flush, newCluster } from '../helpers';

type Obj = Record<string, unknown>;
const SLICE = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice' };

function slices(cluster: Cluster): KubeObject[] {
  return cluster.list(SLICE, { namespace: 'default' }).items;
}

function pod(name: string, labels: Record<string, string>, extra: Obj = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels },
    spec: {
      containers: [{ name: 'c', image: 'nginx', ports: [{ name: 'http', containerPort: 8080 }] }],
      ...extra,
    },
  };
}

const service: KubeObject = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'default', labels: { team: 'a' } },
  spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
};

test('a Service selecting nothing has one placeholder slice, owned and labelled by the controller', async () => {
  const { cluster } = newCluster();
  const svc = cluster.create(service);
  await flush();
  const [s, ...rest] = slices(cluster);
  assert.equal(rest.length, 0);
  assert.equal(s.addressType, 'IPv4');
  assert.equal(s.endpoints, null);
  assert.equal(s.ports, null);
  assert.equal(s.metadata.generateName, 'web-');
  assert.deepEqual(s.metadata.labels, {
    team: 'a',
    'kubernetes.io/service-name': 'web',
    'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
  });
  assert.equal(s.metadata.ownerReferences?.[0].uid, svc.metadata.uid);
  cluster.close();
});

test('a selected pod becomes an endpoint once it has an IP, ready once the pod is Ready', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 1000 });
  cluster.create(service);
  cluster.create(pod('p', { app: 'web' }));
  cluster.create(pod('other', { app: 'db' }));
  await flush();
  assert.equal(slices(cluster)[0].endpoints, null);
  await clock.advance(1000);
  const [s] = slices(cluster);
  const p = cluster.get(POD, { namespace: 'default', name: 'p' });
  assert.deepEqual(s.endpoints, [
    {
      addresses: [(p.status as Obj).podIP],
      conditions: { ready: true, serving: true, terminating: false },
      targetRef: { kind: 'Pod', namespace: 'default', name: 'p', uid: p.metadata.uid },
      nodeName: 'reconcile-studio-node',
    },
  ]);
  // The named targetPort resolves to the container's port.
  assert.deepEqual(s.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
  assert.ok(s.metadata.annotations?.['endpoints.kubernetes.io/last-change-trigger-time']);
  cluster.delete(POD, { namespace: 'default', name: 'p' });
  await flush();
  assert.equal(slices(cluster)[0].endpoints, null);
  cluster.close();
});

test('a headless Service’s slice is labelled headless and names the pods of its subdomain', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 0 });
  cluster.create({
    ...service,
    spec: { ...(service.spec as Obj), clusterIP: 'None' },
  });
  cluster.create(pod('p', { app: 'web' }, { hostname: 'p', subdomain: 'web' }));
  await flush(clock);
  const [s] = slices(cluster);
  assert.equal(s.metadata.labels?.['service.kubernetes.io/headless'], '');
  assert.equal(((s.endpoints as Obj[])[0] as Obj).hostname, 'p');
  cluster.close();
});
