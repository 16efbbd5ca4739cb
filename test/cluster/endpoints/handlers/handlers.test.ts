/**
 * Each verb's handler served on its own: a plain loopback HTTP server hands every request to one
 * handler with a scope built from it — no routing, authentication or TLS — so these tests check
 * what the handler itself answers and records.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { AuditLog, type AuditEvent } from '../../../../src/cluster/endpoints/audit';
import { createCluster } from '../../../../src/cluster/builtins';
import type { Cluster } from '../../../../src/cluster/cluster';
import { createResource } from '../../../../src/cluster/endpoints/handlers/create';
import { deleteResource } from '../../../../src/cluster/endpoints/handlers/delete';
import { getResource } from '../../../../src/cluster/endpoints/handlers/get';
import { listOptionsOf, listResource } from '../../../../src/cluster/endpoints/handlers/list';
import { patchResource } from '../../../../src/cluster/endpoints/handlers/patch';
import { SEPARATE_HEADERS_BYTES } from '../../../../src/cluster/endpoints/handlers/response';
import { requestScope, type RequestScope } from '../../../../src/cluster/endpoints/handlers/scope';
import { updateResource } from '../../../../src/cluster/endpoints/handlers/update';
import { StatusError } from '../../../../src/cluster/apimachinery/errors';
import { CM } from '../../helpers';

type Handler = (s: RequestScope) => void | Promise<void>;

/** Serves `handler` for ConfigMaps in `default`; the handler gets the scope of each request. */
async function serveHandler(cluster: Cluster, audit: AuditLog, handler: Handler) {
  const t = cluster.typeOf(CM);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const record = audit.begin({
        user: 'tester',
        userAgent: req.headers['user-agent'] ?? '',
        method: req.method ?? 'GET',
        requestURI: req.url ?? '/',
      });
      res.on('close', () => record.complete(res.statusCode));
      const scope = requestScope({
        cluster,
        req,
        res,
        t,
        namespace: 'default',
        subresource: undefined,
        q: url.searchParams,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
        record,
        pretty: false,
        user: { username: 'tester', groups: ['system:authenticated'] },
      });
      Promise.resolve()
        .then(() => handler(scope))
        .catch((err: unknown) => {
          const se = err as StatusError;
          res.writeHead(se.code ?? 500, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify(se.status ?? { message: String(err) }));
        });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    request: (path: string, init: RequestInit = {}) =>
      fetch(`http://127.0.0.1:${port}${path}`, init),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function configMap(name: string, data: Record<string, string>) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default' },
    data,
  };
}

describe('resource handlers served on their own', () => {
  let cluster: Cluster;
  let audit: AuditLog;
  before(() => {
    cluster = createCluster({ controllers: false });
    audit = new AuditLog();
  });
  after(() => cluster.close());

  const lastEvent = (): AuditEvent => {
    const evs = audit.events();
    return evs[evs.length - 1];
  };

  it('create answers 201 with the stored object, the user agent as its field manager', async () => {
    const h = await serveHandler(cluster, audit, createResource);
    try {
      const r = await h.request('/', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'kubectl/v1.31.0 (linux)' },
        body: JSON.stringify(configMap('created', { a: '1' })),
      });
      assert.equal(r.status, 201);
      const out = (await r.json()) as { metadata: { resourceVersion: string } };
      const stored = cluster.get(CM, { namespace: 'default', name: 'created' });
      assert.equal(out.metadata.resourceVersion, stored.metadata.resourceVersion);
      const managers = (stored.metadata.managedFields ?? []).map((m) => m.manager);
      assert.deepEqual(managers, ['kubectl']);
      assert.equal(lastEvent().after?.metadata.name, 'created');
      assert.equal(lastEvent().before, undefined);
    } finally {
      await h.close();
    }
  });

  it('create refuses a body that already has a resourceVersion and stores nothing', async () => {
    const h = await serveHandler(cluster, audit, createResource);
    try {
      const body = configMap('with-rv', {});
      (body.metadata as Record<string, unknown>).resourceVersion = '5';
      const r = await h.request('/', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(r.status, 500);
      assert.equal(cluster.peek(CM, { namespace: 'default', name: 'with-rv' }), undefined);
    } finally {
      await h.close();
    }
  });

  it('get answers the stored JSON, or a Table when the Accept header asks for one', async () => {
    cluster.create(configMap('g', { k: 'v' }));
    const h = await serveHandler(cluster, audit, (s) => getResource(s, 'g'));
    try {
      const plain = await h.request('/');
      assert.equal(plain.status, 200);
      assert.equal(await plain.text(), cluster.getJSON(CM, { namespace: 'default', name: 'g' }));
      const table = (await (
        await h.request('/', {
          headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
        })
      ).json()) as { kind: string; rows: Array<{ cells: unknown[] }> };
      assert.equal(table.kind, 'Table');
      assert.equal(table.rows[0].cells[0], 'g');
      const meta = (await (
        await h.request('/', {
          headers: { accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io' },
        })
      ).json()) as Record<string, unknown>;
      assert.equal(meta.kind, 'PartialObjectMetadata');
      assert.equal(meta.data, undefined);
    } finally {
      await h.close();
    }
  });

  it('a body past SEPARATE_HEADERS_BYTES goes out whole, after its headers and warnings', async () => {
    const big = 'é'.repeat(SEPARATE_HEADERS_BYTES);
    cluster.create(configMap('b', { a: '1' }));
    const h = await serveHandler(cluster, audit, (s) => updateResource(s, 'b'));
    try {
      const r = await h.request('/?fieldValidation=Warn', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...configMap('b', { big }), extra: 1 }),
      });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), 'application/json');
      assert.match(r.headers.get('warning') ?? '', /unknown field \\"extra\\"/);
      const text = await r.text();
      assert.equal(Number(r.headers.get('content-length')), Buffer.byteLength(text));
      assert.ok(Buffer.byteLength(text) > SEPARATE_HEADERS_BYTES);
      assert.equal(text, cluster.getJSON(CM, { namespace: 'default', name: 'b' }));
      assert.equal((JSON.parse(text) as { data: { big: string } }).data.big, big);
    } finally {
      await h.close();
    }
  });

  it('get of a missing object is the NotFound the cluster throws', async () => {
    const h = await serveHandler(cluster, audit, (s) => getResource(s, 'absent'));
    try {
      const r = await h.request('/');
      assert.equal(r.status, 404);
      assert.equal(((await r.json()) as { reason: string }).reason, 'NotFound');
    } finally {
      await h.close();
    }
  });

  it('list honours the label selector of the query', async () => {
    cluster.create({
      ...configMap('l1', {}),
      metadata: { name: 'l1', namespace: 'default', labels: { app: 'x' } },
    });
    cluster.create({
      ...configMap('l2', {}),
      metadata: { name: 'l2', namespace: 'default', labels: { app: 'y' } },
    });
    const h = await serveHandler(cluster, audit, (s) =>
      listResource(s, listOptionsOf(s.q, s.namespace)),
    );
    try {
      const list = (await (await h.request('/?labelSelector=app%3Dx')).json()) as {
        items: Array<{ metadata: { name: string } }>;
      };
      assert.deepEqual(
        list.items.map((i) => i.metadata.name),
        ['l1'],
      );
    } finally {
      await h.close();
    }
  });

  it('update refuses a body whose name differs from the URL', async () => {
    cluster.create(configMap('u', { a: '1' }));
    const h = await serveHandler(cluster, audit, (s) => updateResource(s, 'u'));
    try {
      const r = await h.request('/', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(configMap('other', { a: '2' })),
      });
      assert.equal(r.status, 400);
      assert.match(
        ((await r.json()) as { message: string }).message,
        /the name of the object \(other\) does not match the name on the URL \(u\)/,
      );
      assert.deepEqual(cluster.get(CM, { namespace: 'default', name: 'u' }).data, { a: '1' });
    } finally {
      await h.close();
    }
  });

  it('update records the stored object before and the result after', async () => {
    const stored = cluster.create(configMap('u2', { a: '1' }));
    const h = await serveHandler(cluster, audit, (s) => updateResource(s, 'u2'));
    try {
      const r = await h.request('/', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(configMap('u2', { a: '2' })),
      });
      assert.equal(r.status, 200);
      assert.deepEqual(lastEvent().before?.data, { a: '1' });
      assert.equal(lastEvent().before?.metadata.resourceVersion, stored.metadata.resourceVersion);
      assert.deepEqual(lastEvent().after?.data, { a: '2' });
    } finally {
      await h.close();
    }
  });

  it('update answers the stored object from its cached JSON and records it, not a copy', async () => {
    cluster.create(configMap('u3', { a: '1' }));
    const h = await serveHandler(cluster, audit, (s) => updateResource(s, 'u3'));
    try {
      const r = await h.request('/', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(configMap('u3', { a: '2' })),
      });
      assert.equal(r.status, 200);
      const stored = cluster.peek(CM, { namespace: 'default', name: 'u3' })!;
      assert.deepEqual(stored.data, { a: '2' });
      // One object for the store, the answer and the audit: a big body is not copied for each.
      assert.equal(await r.text(), cluster.jsonOf(stored));
      assert.equal(lastEvent().after, stored);
    } finally {
      await h.close();
    }
  });

  it('patch: 415 for an unknown content type, 201 when apply creates, 200 when it changes', async () => {
    const h = await serveHandler(cluster, audit, (s) => patchResource(s, 'p'));
    try {
      const bad = await h.request('/', {
        method: 'PATCH',
        headers: { 'content-type': 'text/plain' },
        body: '{}',
      });
      assert.equal(bad.status, 415);
      const apply = (data: Record<string, string>) =>
        h.request('/?fieldManager=me', {
          method: 'PATCH',
          headers: { 'content-type': 'application/apply-patch+yaml' },
          body: JSON.stringify(configMap('p', data)),
        });
      assert.equal((await apply({ a: '1' })).status, 201);
      assert.equal((await apply({ a: '2' })).status, 200);
      assert.deepEqual(cluster.get(CM, { namespace: 'default', name: 'p' }).data, { a: '2' });
    } finally {
      await h.close();
    }
  });

  it('patch answers the stored object from its cached JSON and records it, not a copy', async () => {
    cluster.create(configMap('p2', { a: '1' }));
    const h = await serveHandler(cluster, audit, (s) => patchResource(s, 'p2'));
    try {
      const r = await h.request('/', {
        method: 'PATCH',
        headers: { 'content-type': 'application/merge-patch+json' },
        body: JSON.stringify({ data: { b: '2' } }),
      });
      assert.equal(r.status, 200);
      const stored = cluster.peek(CM, { namespace: 'default', name: 'p2' })!;
      assert.deepEqual(stored.data, { a: '1', b: '2' });
      assert.equal(await r.text(), cluster.jsonOf(stored));
      assert.equal(lastEvent().after, stored);
    } finally {
      await h.close();
    }
  });

  it('delete answers a Success Status for a ConfigMap and records what was deleted', async () => {
    cluster.create(configMap('d', {}));
    const h = await serveHandler(cluster, audit, (s) => deleteResource(s, 'd'));
    try {
      const r = await h.request('/', { method: 'DELETE' });
      assert.equal(r.status, 200);
      const status = (await r.json()) as { kind: string; status: string };
      assert.equal(status.kind, 'Status');
      assert.equal(status.status, 'Success');
      assert.equal(cluster.peek(CM, { namespace: 'default', name: 'd' }), undefined);
      assert.equal(lastEvent().before?.metadata.name, 'd');
    } finally {
      await h.close();
    }
  });
});
