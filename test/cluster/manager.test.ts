/**
 * What a controller-runtime manager needs besides discovery and watches: JSON answers to its
 * protobuf-first Accepts, and the kinds it and kubebuilder's manifests write.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { served } from './http';
import type { Served } from './http';

let s: Served;
before(async () => {
  s = await served();
});
after(() => s.close());

describe('what client-go accepts', () => {
  it('answers the protobuf-first Accepts of built-in kinds in JSON, labelled as JSON', async () => {
    for (const accept of [
      'application/vnd.kubernetes.protobuf, */*',
      'application/vnd.kubernetes.protobuf,application/json',
    ]) {
      const r = await s.get('/api/v1/namespaces/default', { accept });
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal((JSON.parse(r.body) as { kind: string }).kind, 'Namespace');
    }
  });
});

describe('kinds a manager and kubebuilder manifests use', () => {
  it('stores RBAC ClusterRoles and coordination.k8s.io Leases with microsecond times', async () => {
    s.cluster.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'manager-role' },
      rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] }],
    });
    const role = await s.get('/apis/rbac.authorization.k8s.io/v1/clusterroles/manager-role');
    assert.equal(role.status, 200);
    s.cluster.create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'lock', namespace: 'default' },
      spec: { holderIdentity: 'me', renewTime: '2026-01-02T03:04:05.123456Z' },
    });
    const lease = JSON.parse(
      (await s.get('/apis/coordination.k8s.io/v1/namespaces/default/leases/lock')).body,
    ) as { spec: { renewTime: string } };
    assert.equal(lease.spec.renewTime, '2026-01-02T03:04:05.123456Z');
  });
});

describe('Events through events.k8s.io/v1', () => {
  it('selects them by the fields its conversion maps (reason, regarding.name)', async () => {
    for (const [name, reason] of [
      ['a', 'FailedCreate'],
      ['b', 'SuccessfulCreate'],
    ])
      s.cluster.create({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `rs.${name}`, namespace: 'default' },
        involvedObject: { kind: 'ReplicaSet', namespace: 'default', name },
        reason,
        message: 'm',
        type: 'Normal',
      });
    const names = async (selector: string) =>
      (
        JSON.parse(
          (
            await s.get(
              `/apis/events.k8s.io/v1/namespaces/default/events?fieldSelector=${encodeURIComponent(selector)}`,
            )
          ).body,
        ) as { items: { metadata: { name: string } }[] }
      ).items.map((e) => e.metadata.name);
    assert.deepEqual(await names('reason=FailedCreate'), ['rs.a']);
    assert.deepEqual(await names('regarding.name=b'), ['rs.b']);
    const bad = await s.get('/apis/events.k8s.io/v1/events?fieldSelector=involvedObject.name%3Da');
    assert.equal(bad.status, 400);
    assert.match(bad.body, /field label not supported: involvedObject.name/);
  });
});
