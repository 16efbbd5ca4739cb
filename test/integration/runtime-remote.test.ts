// The reconcile runtime against a served API server: the fake cluster started as a child process
// (`reconcile-studio serve`) and reached through its kubeconfig with @kubernetes/client-node, on the
// real clock. Loopback only; every wait is bounded; nothing asserts on timing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isConflict,
  isForbidden,
  isNotFound,
  ignoreNotFound,
} from '../../src/cluster/apimachinery/errors';
import type { KubeObject } from '../../src/cluster/apimachinery/types';
import { Manager } from '../../src/runtime/manager';
import { newControllerManagedBy } from '../../src/runtime/builder';
import { RemoteApiServer, statusErrorFrom } from '../../src/runtime/remote';
import type { ReconcileTrace } from '../../src/runtime/trace';
import { phaseSummary } from '../../src/runtime/phasesummary';
import { serve } from './serve';
import type { Served } from './serve';

type K8s = typeof import('@kubernetes/client-node');
let s: Served;
let api: RemoteApiServer;

const GADGET = { apiVersion: 'example.com/v1', kind: 'Gadget' };
const CM = { apiVersion: 'v1', kind: 'ConfigMap' };

const GADGET_CRD: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer' } } },
              status: {
                type: 'object',
                properties: { phase: { type: 'string' }, children: { type: 'integer' } },
              },
            },
          },
        },
      },
    ],
  },
};

async function until<T>(what: string, f: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await f();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${String(last)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

before(async () => {
  const k8s: K8s = await import('@kubernetes/client-node');
  s = await serve();
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(s.kubeconfig);
  api = await RemoteApiServer.connect(kc, { fieldManager: 'runtime-remote-test' });
  await api.create(GADGET_CRD);
  await until('the Gadget CRD in discovery', async () => {
    await api.refreshDiscovery();
    return api.resources().find((r) => r.kind === 'Gadget');
  });
});

after(async () => {
  await s?.stop();
});

test('discovery gives plurals and scopes from /api and /apis', () => {
  const find = (kind: string, group: string) =>
    api.resources().find((r) => r.kind === kind && r.group === group);
  assert.equal(find('ConfigMap', '')?.plural, 'configmaps');
  assert.equal(find('ConfigMap', '')?.namespaced, true);
  assert.equal(find('Namespace', '')?.namespaced, false);
  assert.equal(find('Deployment', 'apps')?.plural, 'deployments');
  const g = find('Gadget', 'example.com');
  assert.equal(g?.plural, 'gadgets');
  assert.ok(g?.subresources.includes('status'));
  assert.equal(api.clock.now() > 1e12, true, 'the real clock');
});

test('CRUD, subresource status, merge/json/strategic patches, errors as StatusError', async () => {
  const cm = await api.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'crud', namespace: 'default' },
    data: { a: '1' },
  });
  assert.equal(cm.kind, 'ConfigMap');
  assert.ok(cm.metadata.resourceVersion);
  const got = await api.get(CM, { namespace: 'default', name: 'crud' });
  assert.deepEqual(got.data, { a: '1' });

  const merged = await api.patch(
    CM,
    { namespace: 'default', name: 'crud' },
    { data: { b: '2' } },
    'merge',
  );
  assert.deepEqual(merged.data, { a: '1', b: '2' });
  const jsoned = await api.patch(
    CM,
    { namespace: 'default', name: 'crud' },
    [{ op: 'remove', path: '/data/a' }],
    'json',
  );
  assert.deepEqual(jsoned.data, { b: '2' });
  const strategic = await api.patch(
    CM,
    { namespace: 'default', name: 'crud' },
    { metadata: { labels: { x: 'y' } } },
    'strategic',
  );
  assert.equal(strategic.metadata.labels?.x, 'y');

  // A stale resourceVersion is a Conflict; a missing object a NotFound.
  const stale = { ...cm, data: { c: '3' } };
  await assert.rejects(
    async () => api.update(stale),
    (e: unknown) => isConflict(e),
  );
  await assert.rejects(
    async () => api.get(CM, { namespace: 'default', name: 'nope' }),
    (e: unknown) => isNotFound(e) && /configmaps "nope" not found/.test((e as Error).message),
  );
  assert.equal(
    await api.get(CM, { namespace: 'default', name: 'nope' }).catch(ignoreNotFound),
    undefined,
  );

  const listed = await api.list(CM, { namespace: 'default' });
  const item = listed.items.find((o) => o.metadata.name === 'crud');
  assert.equal(item?.kind, 'ConfigMap', 'list items carry their kind');
  assert.ok(listed.metadata.resourceVersion);

  // Status subresource: an update of it leaves spec alone.
  const g = await api.create({
    apiVersion: 'example.com/v1',
    kind: 'Gadget',
    metadata: { name: 'st', namespace: 'default' },
    spec: { size: 1 },
  });
  const withStatus = await api.update(
    { ...g, spec: { size: 99 }, status: { phase: 'Up' } },
    { subresource: 'status' },
  );
  assert.deepEqual(withStatus.status, { phase: 'Up' });
  assert.deepEqual(withStatus.spec, { size: 1 });
  // CRDs do not take strategic merge patches: the server's 415 comes back as a StatusError.
  await assert.rejects(
    async () =>
      api.patch(GADGET, { namespace: 'default', name: 'st' }, { spec: { size: 2 } }, 'strategic'),
    (e: unknown) => (e as { code?: number }).code === 415,
  );

  await api.delete(CM, { namespace: 'default', name: 'crud' });
  await assert.rejects(
    async () => api.get(CM, { namespace: 'default', name: 'crud' }),
    (e: unknown) => isNotFound(e),
  );
  await api.delete(GADGET, { namespace: 'default', name: 'st' });
});

test('Status bodies map to StatusError; bodies that are not a Status get the code’s reason', () => {
  const forbidden = statusErrorFrom(
    403,
    JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'pods "p" is forbidden: exceeded quota: compute',
      reason: 'Forbidden',
      code: 403,
    }),
  );
  assert.ok(isForbidden(forbidden));
  assert.match(forbidden.message, /exceeded quota/);
  const bare = statusErrorFrom(409, 'conflict!');
  assert.ok(isConflict(bare));
  assert.equal(bare.code, 409);
});

test('a watch from the list resourceVersion delivers the later changes', async () => {
  const list = await api.list(CM, { namespace: 'default' });
  const events: string[] = [];
  const h = api.watch(
    CM,
    { namespace: 'default', resourceVersion: list.metadata.resourceVersion },
    (e) => {
      if (e.object.metadata?.name === 'watched') events.push(e.type);
    },
  );
  try {
    // The watch may connect after the create: retry the create/delete pair until seen.
    await until('ADDED and DELETED of the watched ConfigMap', async () => {
      await api
        .create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'watched', namespace: 'default' },
        })
        .catch(() => undefined);
      await api.delete(CM, { namespace: 'default', name: 'watched' }).catch(() => undefined);
      return events.includes('ADDED') && events.includes('DELETED') ? true : undefined;
    });
  } finally {
    h.stop();
  }
  assert.equal(events[0], 'ADDED');
});

test('a watch the server ends (timeoutSeconds) closes cleanly, so an informer resumes it', async () => {
  const closed = await new Promise<unknown>((res) => {
    api.watch(
      CM,
      { namespace: 'default', timeoutSeconds: 1 },
      () => {},
      (err) => res(err ?? 'clean'),
    );
    setTimeout(() => res('still open after 15 s'), 15_000).unref();
  });
  assert.equal(closed, 'clean');
});

test('a Manager reconciles through the remote server: owned child, status, annotation', async () => {
  const mgr = new Manager({ api, stepper: false });
  assert.equal(mgr.isNamespaced(GADGET), true);
  assert.equal(mgr.isNamespaced({ apiVersion: 'v1', kind: 'Namespace' }), false);
  newControllerManagedBy(mgr)
    .for(GADGET)
    .owns(CM)
    .complete(async (ctx, req) => {
      const gadget = await ctx.client.get(GADGET, req).catch(ignoreNotFound);
      if (!gadget) return {};
      const childName = `${req.name}-child`;
      const size = String((gadget.spec as { size?: number } | undefined)?.size ?? 0);
      const child = await ctx.client
        .get(CM, { namespace: req.namespace, name: childName })
        .catch(ignoreNotFound);
      if (!child) {
        await ctx.client.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: childName,
            namespace: req.namespace,
            ownerReferences: [
              {
                apiVersion: gadget.apiVersion,
                kind: gadget.kind,
                name: gadget.metadata.name!,
                uid: gadget.metadata.uid!,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          },
          data: { size },
        });
      }
      if ((gadget.status as { phase?: string } | undefined)?.phase !== 'Ready') {
        ctx.recorder.event(gadget, 'Normal', 'Ready', `child ${childName} in place`);
        gadget.status = { phase: 'Ready', children: 1 };
        await ctx.client.status().update(gadget);
      }
      if (gadget.metadata.annotations?.['example.com/size'] !== size) {
        await ctx.client.patch(gadget, {
          metadata: { annotations: { 'example.com/size': size } },
        });
      }
      return {};
    });
  await api.create({
    apiVersion: 'example.com/v1',
    kind: 'Gadget',
    metadata: { name: 'g1', namespace: 'default' },
    spec: { size: 3 },
  });
  mgr.start();
  try {
    const gadget = await until('g1 reconciled', async () => {
      const g = await api.get(GADGET, { namespace: 'default', name: 'g1' });
      return (g.status as { phase?: string } | undefined)?.phase === 'Ready' &&
        g.metadata.annotations?.['example.com/size'] === '3'
        ? g
        : undefined;
    });
    const child = await api.get(CM, { namespace: 'default', name: 'g1-child' });
    assert.deepEqual(child.data, { size: '3' });
    assert.equal(child.metadata.ownerReferences?.[0]?.uid, gadget.metadata.uid);
    assert.equal(child.metadata.ownerReferences?.[0]?.controller, true);
    assert.deepEqual(gadget.status, { phase: 'Ready', children: 1 });

    // The traces: reads from the cache, writes to the server, with their codes.
    await until('the writes traced', async () =>
      mgr.traces().some((t) => t.calls.some((c) => c.verb === 'patch' && c.code === 200))
        ? true
        : undefined,
    );
    const traces: ReconcileTrace[] = mgr.traces();
    const calls = traces.flatMap((t) => t.calls);
    const first = traces.find((t) => t.calls.some((c) => c.verb === 'create'))!;
    assert.ok(first, 'a reconcile created the child');
    const get = first.calls.find((c) => c.verb === 'get' && c.kind === 'Gadget')!;
    assert.equal(get.source, 'cache');
    assert.equal(get.code, 200);
    const miss = first.calls.find((c) => c.verb === 'get' && c.kind === 'ConfigMap')!;
    assert.equal(miss.source, 'cache');
    assert.equal(miss.code, 404);
    assert.equal(miss.reason, 'NotFound');
    const create = first.calls.find((c) => c.verb === 'create')!;
    assert.deepEqual(
      [create.source, create.code, create.resource, create.namespace, create.name],
      ['server', 201, 'configmaps', 'default', 'g1-child'],
    );
    const status = calls.find((c) => c.subresource === 'status')!;
    assert.deepEqual(
      [status.verb, status.source, status.code, status.resource],
      ['update', 'server', 200, 'gadgets'],
    );
    assert.equal(
      calls.filter((c) => c.verb === 'create' && c.code === 201).length,
      1,
      'the child is created once',
    );
    // A reconcile that ran before the child's watch event reached the cache reads a stale
    // NotFound and its create fails with AlreadyExists, as with controller-runtime.
    for (const t of traces.filter((x) => x.outcome !== 'success')) {
      assert.equal(t.outcome, 'error');
      assert.equal(t.error?.reason, 'AlreadyExists');
    }
    // The diff phase for the status write shows what it changed, before it happened.
    const diff = first.phases.find(
      (p) => p.phase === 'diff' && /status/.test(phaseSummary(p, first)),
    );
    assert.ok(diff?.diff?.some((d) => d.path.startsWith('.status')));

    // ctx.recorder wrote a core/v1 Event about the Gadget.
    const event = await until('the Ready event', async () => {
      const evs = await api.list({ apiVersion: 'v1', kind: 'Event' }, { namespace: 'default' });
      return evs.items.find((e) => e.reason === 'Ready');
    });
    assert.equal((event.involvedObject as { name?: string }).name, 'g1');
    assert.equal(event.message, 'child g1-child in place');

    // Deleting the owner: the informer sees it; the reconcile reads NotFound and returns.
    const before = mgr.traces().length;
    await api.delete(GADGET, { namespace: 'default', name: 'g1' });
    await until('the delete reconciled', async () => {
      const t = mgr.traces().slice(before);
      return t.some((x) => x.calls.some((c) => c.kind === 'Gadget' && c.code === 404))
        ? true
        : undefined;
    });
  } finally {
    await mgr.stop();
  }
});
