import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { ResourceTreeModel, type ObjectNode } from '../../../src/vscode/model/resourcetree';

const WEBAPP = {
  group: 'apps.example.com',
  version: 'v1',
  kind: 'WebApp',
  plural: 'webapps',
  namespaced: true,
};

function webapp(name: string, ns = 'default', extra: Partial<KubeObject> = {}): KubeObject {
  return {
    apiVersion: 'apps.example.com/v1',
    kind: 'WebApp',
    metadata: { name, namespace: ns, uid: `uid-${ns}-${name}`, generation: 1 },
    spec: { replicas: 1 },
    ...extra,
  };
}

describe('ResourceTreeModel', () => {
  it('groups custom resources by kind, then namespace, then name', () => {
    const m = new ResourceTreeModel();
    m.setKinds([WEBAPP]);
    m.apply({ type: 'ADDED', object: webapp('shop') });
    m.apply({ type: 'ADDED', object: webapp('blog') });
    m.apply({ type: 'ADDED', object: webapp('wiki', 'team-a') });
    const [kind] = m.roots();
    assert.equal(kind!.count, 3);
    const namespaces = m.children(kind);
    assert.deepEqual(
      namespaces.map((n) => n.type === 'namespace' && n.namespace),
      ['default', 'team-a'],
    );
    const objects = m.children(namespaces[0]) as ObjectNode[];
    assert.deepEqual(
      objects.map((o) => o.object.metadata.name),
      ['blog', 'shop'],
    );
  });

  it('shows owned objects as children of their owner', () => {
    const m = new ResourceTreeModel();
    m.setKinds([WEBAPP]);
    const app = webapp('shop');
    m.apply({ type: 'ADDED', object: app });
    const deploy: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'shop',
        namespace: 'default',
        uid: 'd1',
        ownerReferences: [
          {
            apiVersion: app.apiVersion,
            kind: 'WebApp',
            name: 'shop',
            uid: app.metadata.uid!,
            controller: true,
          },
        ],
      },
      spec: { replicas: 3 },
      status: { readyReplicas: 2 },
    };
    const changed = m.apply({ type: 'ADDED', object: deploy });
    assert.ok(changed.includes(`o:${app.metadata.uid}`), 'the owner node is refreshed');
    const [objNode] = m.children(m.children(m.roots()[0])[0]) as ObjectNode[];
    assert.equal(objNode!.childCount, 1);
    const [child] = m.children(objNode) as ObjectNode[];
    assert.equal(child!.object.kind, 'Deployment');
    assert.equal(child!.status.summary, '2/3 ready');
    assert.equal(child!.custom, false);
  });

  it('a custom resource drawn before its first owned object and Event turns expandable with them', () => {
    const m = new ResourceTreeModel();
    m.setKinds([WEBAPP]);
    const app = webapp('shop');
    m.apply({ type: 'ADDED', object: app });
    // The view draws the WebApp (no children yet) before the operator creates its Deployment.
    const [drawn] = m.children(m.children(m.roots()[0])[0]) as ObjectNode[];
    assert.equal(drawn!.childCount, 0);
    const owner = {
      apiVersion: app.apiVersion,
      kind: 'WebApp',
      name: 'shop',
      uid: app.metadata.uid!,
    };
    const deploy: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'shop', namespace: 'default', uid: 'd1', ownerReferences: [owner] },
    };
    const changed = m.apply({ type: 'ADDED', object: deploy });
    // The refreshed node is the one the view holds, and now says it has a child.
    assert.ok(changed.includes(drawn!.id));
    assert.equal((m.nodeById(drawn!.id) as ObjectNode).childCount, 1);
    const event = (uid: string, reason: string, at: string, extra: object = {}): KubeObject =>
      ({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `shop.${uid}`, namespace: 'default', uid },
        involvedObject: {
          apiVersion: app.apiVersion,
          kind: 'WebApp',
          name: 'shop',
          uid: app.metadata.uid,
        },
        reason,
        message: `${reason} happened`,
        type: 'Normal',
        count: 1,
        lastTimestamp: at,
        ...extra,
      }) as unknown as KubeObject;
    m.apply({ type: 'ADDED', object: event('e2', 'Scaled', '2026-12-01T00:00:02Z') });
    assert.ok(
      m
        .apply({
          type: 'ADDED',
          object: event('e1', 'FailedCreate', '2026-12-01T00:00:01Z', { type: 'Warning' }),
        })
        .includes(drawn!.id),
    );
    assert.equal((m.nodeById(drawn!.id) as ObjectNode).childCount, 3);
    const children = m.children(drawn);
    assert.deepEqual(
      children.map((c) =>
        c.type === 'event'
          ? `event ${c.event.reason}`
          : c.type === 'object'
            ? c.object.kind
            : c.type,
      ),
      ['Deployment', 'event FailedCreate', 'event Scaled'],
    );
    // An Event that goes away leaves the list.
    m.apply({ type: 'DELETED', object: event('e1', 'FailedCreate', '2026-12-01T00:00:01Z') });
    assert.equal(m.children(drawn).length, 2);
    assert.equal((m.nodeById(drawn!.id) as ObjectNode).childCount, 2);
  });

  it('an update refreshes only that object and its owners, and keeps the node identity', () => {
    const m = new ResourceTreeModel();
    m.setKinds([WEBAPP]);
    m.apply({ type: 'ADDED', object: webapp('shop') });
    const before = m.children(m.children(m.roots()[0])[0])[0] as ObjectNode;
    const changed = m.apply({
      type: 'MODIFIED',
      object: webapp('shop', 'default', { status: { phase: 'Running' } }),
    });
    assert.deepEqual(changed, ['o:uid-default-shop']);
    const after = m.children(m.children(m.roots()[0])[0])[0] as ObjectNode;
    assert.equal(after, before);
    assert.equal(after.status.summary, 'Running · 0/1 ready');
  });

  it('a delete removes the object and an emptied namespace', () => {
    const m = new ResourceTreeModel();
    m.setKinds([WEBAPP]);
    m.apply({ type: 'ADDED', object: webapp('shop') });
    const changed = m.apply({ type: 'DELETED', object: webapp('shop') });
    assert.ok(changed.includes('root'));
    assert.equal(m.roots()[0]!.count, 0);
    assert.deepEqual(m.children(m.roots()[0]), []);
  });

  it('holds 10,000 objects and lists one namespace of them', () => {
    const m = new ResourceTreeModel();
    m.setKinds([WEBAPP]);
    for (let i = 0; i < 10_000; i++)
      m.apply({ type: 'ADDED', object: webapp(`app-${i}`, `ns-${i % 10}`) });
    assert.equal(m.objectCount, 10_000);
    const ns = m.children(m.roots()[0]);
    assert.equal(ns.length, 10);
    assert.equal(m.children(ns[0]).length, 1_000);
  });
});
