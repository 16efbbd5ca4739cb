import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import {
  PhaseReader,
  type DapChannel,
  type PhaseReaderOptions,
} from '../../../src/runtime/godebug/stops';

const MODULE = '/src/webapp';
const CR = '/gomod/sigs.k8s.io/controller-runtime@v0.24.1';
const cache = 'sigs.k8s.io/controller-runtime/pkg/cache/internal';

/** Delve's answers for one stop: its frames and the top frame's locals. */
function channel(
  frames: Array<{ name: string; path: string; line: number }>,
  locals: Array<{ name: string; value: string; type?: string }>,
): DapChannel {
  return {
    request: <T>(command: string): Promise<T> => {
      const body: Record<string, unknown> = {
        stackTrace: {
          stackFrames: frames.map((f, id) => ({ id, ...f, source: { path: f.path } })),
        },
        scopes: { scopes: [{ name: 'Locals', variablesReference: 1 }] },
        variables: { variables: locals.map((l) => ({ ...l, variablesReference: 0 })) },
      }[command] as Record<string, unknown>;
      return Promise.resolve(body as T);
    },
    nextStop: () => new Promise(() => undefined),
  };
}

function reader(ch: DapChannel, lookup?: PhaseReaderOptions['lookup']): PhaseReader {
  return new PhaseReader(ch, {
    ...(lookup ? { lookup } : {}),
    moduleDir: MODULE,
    symbols: {
      version: 'v0.24.1',
      dir: CR,
      functions: [{ name: `${cache}.(*CacheReader).Get`, role: 'cacheGet', method: 'Get' }],
      // The dequeue stop: the statement after `reconcileID := uuid.NewUUID()`.
      lines: [{ file: `${CR}/pkg/internal/controller/controller.go`, line: 471, role: 'dequeue' }],
    },
    reconcilers: [
      {
        name: 'example.com/webapp/internal/controller.(*WebAppReconciler).Reconcile',
        file: `${MODULE}/internal/controller/webapp_controller.go`,
        line: 52,
      },
    ],
    audit: { events: () => [] },
    user: 'go-operator-debug',
  });
}

describe('Go debugger: a cache read', () => {
  const frames = [
    {
      name: 'internal.(*CacheReader).Get',
      path: `${CR}/pkg/cache/internal/cache_reader.go`,
      line: 60,
    },
  ];
  const key = {
    name: 'key',
    value: 'k8s.io/apimachinery/pkg/types.NamespacedName {Namespace: "default", Name: "blog"}',
  };
  const out = {
    name: 'out',
    value: '*{…}',
    type: 'client.Object(*example.com/webapp/api/v1.WebApp)',
  };

  it('carries the object the cluster holds, read by the Go kind and key, when it is found', async () => {
    const asked: string[] = [];
    const blog = { kind: 'WebApp', metadata: { name: 'blog', resourceVersion: '7' } };
    const r = reader(channel(frames, [key, out, { name: 'exists', value: 'true' }]), (k, ns, n) => {
      asked.push(`${k} ${ns}/${n}`);
      return blog;
    });
    const p = await r.phaseAt({ reason: 'function breakpoint', threadId: 1 });
    assert.deepEqual(asked, ['WebApp default/blog']);
    assert.deepEqual(p.call?.after, blog);
  });

  it('carries no object for a miss, nor without a cluster to read', async () => {
    const miss = reader(channel(frames, [key, out, { name: 'exists', value: 'false' }]), () => {
      throw new Error('a miss reads nothing');
    });
    assert.equal(
      (await miss.phaseAt({ reason: 'breakpoint', threadId: 1 })).call?.after,
      undefined,
    );
    const none = reader(channel(frames, [key, out, { name: 'exists', value: 'true' }]));
    assert.equal(
      (await none.phaseAt({ reason: 'breakpoint', threadId: 1 })).call?.after,
      undefined,
    );
  });
});

describe("Go debugger: a phase's source line", () => {
  it("is the innermost frame in the user's module, not controller-runtime's", async () => {
    const r = reader(
      channel(
        [
          {
            name: 'internal.(*CacheReader).Get',
            path: `${CR}/pkg/cache/internal/cache_reader.go`,
            line: 60,
          },
          {
            name: 'cache.(*informerCache).Get',
            path: `${CR}/pkg/cache/informer_cache.go`,
            line: 90,
          },
          { name: 'client.(*client).Get', path: `${CR}/pkg/client/client.go`, line: 340 },
          {
            name: 'controller.(*WebAppReconciler).Reconcile',
            path: `${MODULE}/internal/controller/webapp_controller.go`,
            line: 71,
          },
        ],
        [
          {
            name: 'key',
            value:
              'k8s.io/apimachinery/pkg/types.NamespacedName {Namespace: "default", Name: "blog"}',
          },
          { name: 'out', value: '*{…}', type: 'client.Object(*k8s.io/api/apps/v1.Deployment)' },
          { name: 'exists', value: 'false' },
        ],
      ),
    );
    const p = await r.phaseAt({ reason: 'function breakpoint', threadId: 1 });
    assert.equal(p.phase, 'read');
    assert.deepEqual(p.location, {
      file: `${MODULE}/internal/controller/webapp_controller.go`,
      line: 71,
    });
  });

  it('is the Reconcile method for a stop in controller-runtime alone (dequeue)', async () => {
    const r = reader(
      channel(
        [
          {
            name: 'controller.(*Controller[go.shape.struct]).reconcileHandler',
            path: `${CR}/pkg/internal/controller/controller.go`,
            line: 471,
          },
          {
            name: 'controller.(*Controller[go.shape.struct]).processNextWorkItem',
            path: `${CR}/pkg/internal/controller/controller.go`,
            line: 280,
          },
        ],
        [{ name: 'req', value: '{NamespacedName: {Namespace: "default", Name: "blog"}}' }],
      ),
    );
    const p = await r.phaseAt({ reason: 'breakpoint', threadId: 1 });
    assert.equal(p.phase, 'dequeue');
    assert.deepEqual(p.location, {
      file: `${MODULE}/internal/controller/webapp_controller.go`,
      line: 52,
    });
    assert.equal(r.userFrame, false);
  });

  it("already carries controller-runtime's reconcileID and the controller's name at dequeue", async () => {
    const r = reader(
      channel(
        [
          {
            name: 'controller.(*Controller[go.shape.struct]).reconcileHandler',
            path: `${CR}/pkg/internal/controller/controller.go`,
            line: 471,
          },
        ],
        [
          {
            name: 'c',
            value:
              '*controller.Controller[reconcile.Request] {Name: "webapp", MaxConcurrentReconciles: 1, Do: reconcile.TypedReconciler[reconcile.Request](*controller.WebAppReconciler) *{Client: client.Client(*client.client) ...}...',
          },
          { name: 'req', value: '{NamespacedName: {Namespace: "default", Name: "blog"}}' },
          { name: 'reconcileID', value: '"e67b0884-81c5-4796-b233-48ba0b021858"' },
        ],
      ),
    );
    const p = await r.phaseAt({ reason: 'breakpoint', threadId: 1 });
    assert.equal(p.reconcileID, 'e67b0884-81c5-4796-b233-48ba0b021858');
    assert.equal(p.controller, 'webapp');
  });
});

describe('Go debugger: a write stop', () => {
  it('carries the resource, user agent and injected fault of its request from the audit record', async () => {
    const ch = channel(
      [
        {
          name: 'client.(*client).Update',
          path: `${CR}/pkg/client/client.go`,
          line: 210,
        },
        {
          name: 'controller.(*WebAppReconciler).Reconcile',
          path: `${MODULE}/internal/controller/webapp_controller.go`,
          line: 80,
        },
      ],
      [
        {
          name: 'obj',
          value:
            '*k8s.io/api/apps/v1.Deployment {TypeMeta: v1.TypeMeta {}, ObjectMeta: v1.ObjectMeta {Name: "blog", GenerateName: "", Namespace: "default", …',
          type: 'client.Object(*k8s.io/api/apps/v1.Deployment)',
        },
      ],
    );
    // The step out of the call stops again at once.
    ch.nextStop = () => Promise.resolve({ reason: 'step', threadId: 1 });
    const ev = {
      seq: 1,
      auditID: 'a1',
      stage: 'ResponseComplete' as const,
      user: 'go-operator-debug',
      userAgent: 'main/v0.0.0 (linux/amd64) kubernetes/$Format',
      verb: 'update' as const,
      requestURI: '/apis/apps/v1/namespaces/default/deployments/blog',
      apiVersion: 'apps/v1',
      resource: 'deployments',
      subresource: '',
      namespace: 'default',
      name: 'blog',
      code: 409,
      reason: 'Conflict',
      fault: 'debugger-1: Conflict',
      start: 1,
    };
    const r = new PhaseReader(ch, {
      moduleDir: MODULE,
      symbols: {
        version: 'v0.24.1',
        dir: CR,
        functions: [
          {
            name: 'sigs.k8s.io/controller-runtime/pkg/client.(*client).Update',
            role: 'write',
            method: 'Update',
          },
        ],
        lines: [],
      },
      reconcilers: [],
      audit: { events: () => [ev] },
      user: 'go-operator-debug',
    });
    const p = await r.phaseAt({ reason: 'function breakpoint', threadId: 1 });
    assert.equal(p.phase, 'write');
    assert.deepEqual(
      {
        verb: p.call?.verb,
        kind: p.call?.kind,
        resource: p.call?.resource,
        userAgent: p.call?.userAgent,
        code: p.call?.code,
        fault: p.call?.fault,
      },
      {
        verb: 'update',
        kind: 'Deployment',
        resource: 'deployments',
        userAgent: 'main/v0.0.0 (linux/amd64) kubernetes/$Format',
        code: 409,
        fault: 'debugger-1: Conflict',
      },
    );
  });
});
