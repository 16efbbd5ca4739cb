/**
 * What a controller-runtime manager needs besides discovery and watches: protobuf answers to its
 * protobuf-first Accepts, and the kinds it and kubebuilder's manifests write.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { decodeProtobufObject, encodeProtobufObject } from '../../src/cluster/api/protobuf';
import { served } from './http';
import type { Served } from './http';

let s: Served;
before(async () => {
  s = await served();
});
after(() => s.close());

describe('what client-go accepts', () => {
  it('answers the protobuf-first Accepts of built-in kinds in protobuf, labelled as protobuf', async () => {
    for (const accept of [
      'application/vnd.kubernetes.protobuf, */*',
      'application/vnd.kubernetes.protobuf,application/json',
    ]) {
      const r = await s.get('/api/v1/namespaces/default', { accept });
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], 'application/vnd.kubernetes.protobuf');
      const ns = decodeProtobufObject(r.bytes);
      assert.equal(ns.kind, 'Namespace');
      assert.equal((ns.metadata as { name: string }).name, 'default');
    }
  });

  it('answers JSON when JSON comes first, to a wildcard, and for Tables', async () => {
    for (const accept of [
      'application/json, application/vnd.kubernetes.protobuf',
      '*/*',
      'application/vnd.kubernetes.protobuf;q=0.5, application/json',
      'application/json;as=Table;v=v1;g=meta.k8s.io, application/json',
    ]) {
      const r = await s.get('/api/v1/namespaces/default', { accept });
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], 'application/json', accept);
    }
  });

  it('answers lists in protobuf, every item whole', async () => {
    const r = await s.get('/api/v1/namespaces', {
      accept: 'application/vnd.kubernetes.protobuf,application/json',
    });
    assert.equal(r.headers['content-type'], 'application/vnd.kubernetes.protobuf');
    const list = decodeProtobufObject(r.bytes);
    assert.equal(list.kind, 'NamespaceList');
    const json = JSON.parse((await s.get('/api/v1/namespaces')).body) as { items: unknown[] };
    assert.equal((list.items as unknown[]).length, json.items.length);
  });

  it('answers an error of a protobuf request with a protobuf Status', async () => {
    const r = await s.get('/api/v1/namespaces/default/configmaps/missing', {
      accept: 'application/vnd.kubernetes.protobuf,application/json',
    });
    assert.equal(r.status, 404);
    assert.equal(r.headers['content-type'], 'application/vnd.kubernetes.protobuf');
    const status = decodeProtobufObject(r.bytes);
    assert.equal(status.kind, 'Status');
    assert.equal(status.reason, 'NotFound');
    assert.equal(status.message, 'configmaps "missing" not found');
    assert.equal(status.code, 404);
  });

  it('streams a protobuf watch as length-delimited WatchEvents', async () => {
    const r = await s.get('/api/v1/namespaces?watch=1&timeoutSeconds=1', {
      accept: 'application/vnd.kubernetes.protobuf,application/json',
    });
    assert.equal(r.headers['content-type'], 'application/vnd.kubernetes.protobuf;stream=watch');
    const names: string[] = [];
    for (let i = 0; i < r.bytes.length;) {
      const n = r.bytes.readUInt32BE(i);
      const event = new BinaryReader(r.bytes.subarray(i + 4, i + 4 + n));
      i += 4 + n;
      assert.deepEqual(event.tag(), [1, WireType.LengthDelimited]);
      assert.equal(event.string(), 'ADDED');
      assert.deepEqual(event.tag(), [2, WireType.LengthDelimited]);
      const raw = new BinaryReader(event.bytes());
      assert.deepEqual(raw.tag(), [1, WireType.LengthDelimited]);
      const ns = decodeProtobufObject(raw.bytes());
      names.push((ns.metadata as { name: string }).name);
    }
    assert.ok(names.includes('default'), names.join());
  });

  it('takes a protobuf Deployment and keeps seccompProfile and capabilities.drop', async () => {
    const dep = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'memcached', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'm' } },
        template: {
          metadata: { labels: { app: 'm' } },
          spec: {
            securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
            containers: [
              {
                name: 'memcached',
                image: 'memcached:1.6',
                securityContext: {
                  allowPrivilegeEscalation: false,
                  capabilities: { drop: ['ALL'] },
                },
              },
            ],
          },
        },
      },
    };
    const r = await s.call(
      'POST',
      '/apis/apps/v1/namespaces/default/deployments',
      Buffer.from(encodeProtobufObject(dep)),
      {
        'content-type': 'application/vnd.kubernetes.protobuf',
        accept: 'application/vnd.kubernetes.protobuf,application/json',
      },
    );
    assert.equal(r.status, 201, r.body);
    const got = decodeProtobufObject(r.bytes) as typeof dep;
    const pod = got.spec.template.spec;
    assert.deepEqual(pod.securityContext.seccompProfile, { type: 'RuntimeDefault' });
    assert.deepEqual(pod.containers[0].securityContext.capabilities, { drop: ['ALL'] });
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
